#include <math.h>
#include <string.h>

#include "CClassifyKernels.h"
#include "dispatch.h"
#include "parallel.h"
#include "qgemm.h"

// Int8 pointwise convolution / fully connected layer as an integer GEMM (see cls_qgemm):
// activations quantized to uint8 with a zero point (one scale per tensor), weights int8 with
// one scale per output channel and no zero point, products summed exactly in int32. The zero
// point is taken out after the sum: sum (q - z) w = sum q w - z sum w, and z sum w is a
// per-channel constant computed at load (`offset`), so the inner loop is a plain u8 x s8 dot
// product, which is what vpdpbusd (VNNI) computes four at a time.
//
// This file holds the packing, the quantization of activations, the portable body (plain C
// over the packed layout) and the choice of variant; the vector bodies are in qgemm_avx2.c,
// qgemm_avx_vnni.c and qgemm_avx512_vnni.c. Every variant's store is the same fma, clamp,
// residual add and clamp, in the same order, so all of them give bit-identical outputs.

size_t cls_qgemm_row_bytes(size_t k) { return (k + QGEMM_QUAD - 1) / QGEMM_QUAD * QGEMM_QUAD; }

size_t cls_qgemm_packed_bytes(size_t k, size_t n) {
    return (n + QGEMM_PANEL - 1) / QGEMM_PANEL * QGEMM_PANEL * cls_qgemm_row_bytes(k);
}

void cls_qgemm_pack_weights(const int8_t *weights, size_t k, size_t n, int8_t *packed) {
    const size_t quads = cls_qgemm_row_bytes(k) / QGEMM_QUAD, panels = (n + QGEMM_PANEL - 1) / QGEMM_PANEL;
    for (size_t p = 0; p < panels; p++) {
        int8_t *panel = packed + p * quads * QGEMM_PANEL * QGEMM_QUAD;
        // In tiles of 16 quads, each column's run of them read at once: the tile's writes stay in L1.
        for (size_t first = 0; first < quads; first += 16) {
            const size_t last = first + 16 < quads ? first + 16 : quads;
            for (size_t j = 0; j < QGEMM_PANEL; j++) {
                const size_t column = p * QGEMM_PANEL + j;
                for (size_t i = first; i < last; i++)
                    for (size_t u = 0; u < QGEMM_QUAD; u++) {
                        const size_t input = i * QGEMM_QUAD + u;
                        panel[(i * QGEMM_PANEL + j) * QGEMM_QUAD + u] = column < n && input < k ? weights[column * k + input] : 0;
                    }
            }
        }
    }
}

void cls_quantize_weights(const float *weights, size_t n, size_t k, int8_t *values, float *scales) {
    for (size_t j = 0; j < n; j++) {
        const float *row = weights + j * k;
        int8_t *out = values + j * k;
        // Eight running maxima, so that the loop vectorizes; a NaN compares false and is passed over.
        float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        size_t i = 0;
        for (; i + 8 <= k; i += 8)
            for (size_t l = 0; l < 8; l++) {
                float a = fabsf(row[i + l]);
                lane[l] = a > lane[l] ? a : lane[l];
            }
        for (; i < k; i++) {
            float a = fabsf(row[i]);
            lane[0] = a > lane[0] ? a : lane[0];
        }
        float largest = 0;
        for (size_t l = 0; l < 8; l++) largest = lane[l] > largest ? lane[l] : largest;
        scales[j] = 1;
        if (!(largest > 0) || !isfinite(largest)) {
            memset(out, 0, k);
            continue;
        }
        const float scale = largest / 127;
        scales[j] = scale;
        // Every quotient is within about +-127, where adding and taking away 1.5 * 2^23 rounds
        // half to even exactly (the default rounding mode) and vectorizes, unlike nearbyintf.
        const float round_even = 12582912.0f;
        for (i = 0; i < k; i++) {
            float q = (row[i] / scale + round_even) - round_even;
            q = q < -127 ? -127 : q > 127 ? 127 : q == q ? q : 0;
            out[i] = (int8_t)q;
        }
    }
}

void cls_weight_column_max_abs(const float *weights, size_t n, size_t k, float *largest) {
    for (size_t i = 0; i < k; i++) largest[i] = 0;
    for (size_t j = 0; j < n; j++) {
        const float *row = weights + j * k;
        for (size_t i = 0; i < k; i++) {
            float a = fabsf(row[i]);
            largest[i] = a > largest[i] ? a : largest[i];
        }
    }
}

static void quantize_row_portable(const float *x, size_t k, const float *multipliers, int zero_point, uint8_t *q) {
    for (size_t i = 0; i < k; i++) q[i] = cls_quantize_one(x[i], multipliers[i], zero_point);
}

typedef struct {
    int variant;
    const float *x;
    size_t rows, k, ldx;
    const float *multipliers;
    int zero_point;
    uint8_t *q;
    size_t ldq;
    int tasks;
} quantize_job;

static void quantize_rows(const quantize_job *j, size_t r0, size_t r1) {
    const size_t padded = cls_qgemm_row_bytes(j->k);
    for (size_t r = r0; r < r1; r++) {
        const float *row = j->x + r * j->ldx;
        uint8_t *out = j->q + r * j->ldq;
#if CLS_HAS_AVX512_VARIANT
        if (j->variant == CLS_INT8_AVX512_VNNI) cls_quantize_u8_avx512(row, j->k, j->multipliers, j->zero_point, out);
        else if (j->variant >= CLS_INT8_AVX2) cls_quantize_u8_avx2(row, j->k, j->multipliers, j->zero_point, out);
        else quantize_row_portable(row, j->k, j->multipliers, j->zero_point, out);
#else
        quantize_row_portable(row, j->k, j->multipliers, j->zero_point, out);
#endif
        for (size_t i = j->k; i < padded; i++) out[i] = (uint8_t)j->zero_point;
    }
}

static void quantize_task(void *context, int task) {
    const quantize_job *j = context;
    quantize_rows(j, j->rows * (size_t)task / (size_t)j->tasks, j->rows * (size_t)(task + 1) / (size_t)j->tasks);
}

void cls_quantize_u8_variant(int variant, const float *x, size_t rows, size_t k, size_t ldx, const float *multipliers,
                             int zero_point, uint8_t *q, size_t ldq) {
    // Each row is quantized by itself, so splitting the rows between threads changes no value. A
    // map of the network's early layers (112x112x32) is read in about as long as the int8 GEMM
    // after it takes: on one thread it would be half of the op whatever the GEMM's split. Rows go
    // in bands as the GEMM's (parallel.h), so each core quantizes the rows it multiplies; a band
    // of 4,096 values takes about a microsecond, twice what handing out the tasks costs.
    enum { MIN_VALUES_PER_TASK = 4096 };
    quantize_job j = {variant, x, rows, k, ldx, multipliers, zero_point, q, ldq, 1};
    const int threads = cls_parallel_thread_count();
    if (threads > 1 && rows * k >= 2 * MIN_VALUES_PER_TASK) {
        const size_t most = rows * k / MIN_VALUES_PER_TASK;
        j.tasks = (size_t)threads < most ? threads : (int)most;
        if ((size_t)j.tasks > rows) j.tasks = (int)rows;
    }
    cls_parallel_run(quantize_task, &j, j.tasks);
}

void cls_quantize_u8(const float *x, size_t rows, size_t k, size_t ldx, const float *multipliers, int zero_point,
                     uint8_t *q, size_t ldq) {
    cls_quantize_u8_variant(cls_int8_variant(), x, rows, k, ldx, multipliers, zero_point, q, ldq);
}

// The portable body: one row against one panel at a time, the 16 channels' sums side by side
// (a loop the compiler can vectorize). No blocking; it is the fallback for CPUs without AVX2
// and a second, plain reading of the packed layout for the tests.
static void rect_portable(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1) {
    const size_t r0 = g->m * b0 / g->row_blocks, r1 = g->m * b1 / g->row_blocks;
    for (size_t r = r0; r < r1; r++) {
        const uint8_t *row = g->q + r * g->ldq;
        float *out = g->c + r * g->ldc;
        const float *res = g->residual ? g->residual + r * g->ldc : 0;
        for (size_t p = p0; p < p1; p++) {
            const int8_t *panel = g->packed + p * g->quads * QGEMM_PANEL * QGEMM_QUAD;
            int32_t acc[QGEMM_PANEL] = {0};
            for (size_t i = 0; i < g->quads; i++) {
                const int32_t x0 = row[4 * i], x1 = row[4 * i + 1], x2 = row[4 * i + 2], x3 = row[4 * i + 3];
                const int8_t *w = panel + i * QGEMM_PANEL * QGEMM_QUAD;
                for (size_t j = 0; j < QGEMM_PANEL; j++)
                    acc[j] += x0 * w[4 * j] + x1 * w[4 * j + 1] + x2 * w[4 * j + 2] + x3 * w[4 * j + 3];
            }
            for (size_t j = 0; j < QGEMM_PANEL; j++) {
                const size_t column = p * QGEMM_PANEL + j;
                if (column >= g->n) break;
                out[column] = cls_qgemm_store_one(g, acc[j], column, res ? res + column : 0);
            }
        }
    }
}

void cls_qgemm_rect_panels(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1, qgemm_panel_tile_fn tile) {
    enum { L2_CHUNK_BYTES = 96 * 1024 };
    size_t chunk_blocks = L2_CHUNK_BYTES / (g->ldq * g->tile_m + 1);
    if (chunk_blocks < 1) chunk_blocks = 1;
    for (size_t chunk = b0; chunk < b1; chunk += chunk_blocks) {
        const size_t chunk_end = chunk + chunk_blocks < b1 ? chunk + chunk_blocks : b1;
        for (size_t p = p0; p < p1; p++) {
            const int8_t *b = g->packed + p * g->quads * QGEMM_PANEL * QGEMM_QUAD;
            const size_t column = p * QGEMM_PANEL;
            const int nr = g->n - column < QGEMM_PANEL ? (int)(g->n - column) : QGEMM_PANEL;
            for (size_t blk = chunk; blk < chunk_end; blk++) {
                // Rows spread evenly over the row blocks, as in gemm.c.
                const size_t r0 = g->m * blk / g->row_blocks;
                const int mr = (int)(g->m * (blk + 1) / g->row_blocks - r0);
                const float *res = g->residual ? g->residual + r0 * g->ldc + column : 0;
                tile(mr, g, g->q + r0 * g->ldq, b, column, nr, g->c + r0 * g->ldc + column, res);
            }
        }
    }
}

typedef void (*qgemm_rect_fn)(const qgemm_job *, size_t, size_t, size_t, size_t);

typedef struct {
    qgemm_job job;
    qgemm_rect_fn rect;
} qgemm_call;

static void qgemm_task(void *context, int task) {
    const qgemm_call *call = context;
    const qgemm_job *g = &call->job;
    const int mi = task / g->n_tasks, ni = task % g->n_tasks;
    const size_t b0 = g->row_blocks * (size_t)mi / (size_t)g->m_tasks;
    const size_t b1 = g->row_blocks * (size_t)(mi + 1) / (size_t)g->m_tasks;
    const size_t steps = (g->panels + g->panel_step - 1) / g->panel_step;
    const size_t p0 = steps * (size_t)ni / (size_t)g->n_tasks * g->panel_step;
    size_t p1 = steps * (size_t)(ni + 1) / (size_t)g->n_tasks * g->panel_step;
    if (p1 > g->panels) p1 = g->panels;
    if (b0 < b1 && p0 < p1) call->rect(g, b0, b1, p0, p1);
}

void cls_qgemm_variant(int variant, size_t m, size_t n, size_t k, const uint8_t *q, size_t ldq,
                       const int8_t *packed, const int32_t *offset, const float *scale, const float *bias,
                       float lower, float upper, const float *residual, float residual_lower,
                       float residual_upper, float *c, size_t ldc) {
    if (m == 0 || n == 0) return;
    qgemm_call call = {
        .job = {
            .m = m, .n = n, .k = k, .quads = cls_qgemm_row_bytes(k) / QGEMM_QUAD, .ldq = ldq, .ldc = ldc,
            .q = q, .packed = packed, .offset = offset, .scale = scale, .bias = bias, .residual = residual, .c = c,
            .lower = lower, .upper = upper, .residual_lower = residual_lower, .residual_upper = residual_upper,
            .tile_m = 1, .panels = (n + QGEMM_PANEL - 1) / QGEMM_PANEL, .panel_step = 1, .m_tasks = 1, .n_tasks = 1,
        },
        .rect = rect_portable,
    };
#if CLS_HAS_AVX512_VARIANT
    switch (variant) {
    case CLS_INT8_AVX512_VNNI:
        call.rect = cls_qgemm_rect_avx512_vnni;
        call.job.tile_m = QGEMM_TILE_M_AVX512;
        call.job.panel_step = QGEMM_GROUP_AVX512;
        break;
    case CLS_INT8_AVX_VNNI:
        call.rect = cls_qgemm_rect_avx_vnni;
        call.job.tile_m = QGEMM_TILE_M_AVX_VNNI;
        break;
    case CLS_INT8_AVX2:
        call.rect = cls_qgemm_rect_avx2;
        call.job.tile_m = QGEMM_TILE_M_AVX2;
        break;
    default: break;
    }
#else
    (void)variant;
#endif
    qgemm_job *g = &call.job;
    g->row_blocks = (m + g->tile_m - 1) / g->tile_m;
    const int threads = cls_parallel_thread_count();
    if (threads > 1) {
        // As in gemm.c: a band of rows per thread whenever every band gets a row block.
        const int want = threads;
        const size_t steps = (g->panels + g->panel_step - 1) / g->panel_step;
        if (g->row_blocks >= (size_t)want) g->m_tasks = want;
        else g->n_tasks = (size_t)want < steps ? want : (int)steps;
    }
    cls_parallel_run(qgemm_task, &call, g->m_tasks * g->n_tasks);
}

void cls_qgemm(size_t m, size_t n, size_t k, const uint8_t *q, size_t ldq, const int8_t *packed,
               const int32_t *offset, const float *scale, const float *bias, float lower, float upper,
               const float *residual, float residual_lower, float residual_upper, float *c, size_t ldc) {
    cls_qgemm_variant(cls_int8_variant(), m, n, k, q, ldq, packed, offset, scale, bias, lower, upper, residual,
                      residual_lower, residual_upper, c, ldc);
}
