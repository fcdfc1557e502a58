#include "CClassifyKernels.h"
#include "dispatch.h"
#include "gemm.h"
#include "parallel.h"
#include "vec.h"

// The AVX-512 variant (gemm_avx512.c) reads the same panels, four at a time.
//
// Pointwise convolution as GEMM: C[m][n] = A[m][k] * B[k][n], A being the NHWC activations
// (one row per pixel, read in place) and B the weights, packed once at load into panels of 16
// output channels, B_packed[panel][k][16] (zero-filled past n), so the inner loop reads 16
// consecutive floats per k.
//
// Register blocking (6 rows x 16 columns): 12 accumulators, 2 weight vectors and one broadcast
// activation = 15 of the 16 ymm registers; per k, 2 loads of B and 6 broadcasts feed 12 FMAs.
// Bias, the activation clamp and an optional residual add (with its own clamp) happen in the
// tile's store, so the output is written exactly once.
//
// Cache blocking: the rows of A are taken in chunks that fit in L2 (all 16-column panels sweep a
// chunk before the next chunk starts), and each panel of B is reused by every 6-row tile of the
// chunk. With two threads the work is cut along M when A is the larger operand (big maps, few
// channels) and along the panels when B is (7x7 and 14x14 maps with many channels), so neither
// thread re-reads much of the other's data.

#ifndef GEMM_PREFETCH_LOCALITY
#define GEMM_PREFETCH_LOCALITY 1
#endif

enum { PANEL = GEMM_PANEL, TILE_M = 6, L2_CHUNK_BYTES = 96 * 1024 };

size_t cls_gemm_packed_count(size_t k, size_t n) { return (n + PANEL - 1) / PANEL * PANEL * k; }

void cls_gemm_pack_weights(const float *weights, size_t k, size_t n, float *packed) {
    size_t panels = (n + PANEL - 1) / PANEL;
    for (size_t p = 0; p < panels; p++) {
        float *panel = packed + p * k * PANEL;
        size_t columns = n - p * PANEL < PANEL ? n - p * PANEL : PANEL;
        // A transpose, in tiles of 16 rows of k: a tile's writes (16 lines) stay in L1 while its
        // 16 columns are read, where a column at a time wrote k lines of a panel larger than L1.
        for (size_t first = 0; first < k; first += 16) {
            size_t last = first + 16 < k ? first + 16 : k;
            for (size_t j = 0; j < PANEL; j++) {
                const float *source = weights + (p * PANEL + j) * k;
                for (size_t i = first; i < last; i++) panel[i * PANEL + j] = j < columns ? source[i] : 0.0f;
            }
        }
    }
}


// Writes the first `nr` values of a clamped row `tile` to `out`, adding and clamping the residual
// row when there is one: the scalar store of a tile's partial last panel.
CLS_INLINE void gemm_store_partial(const gemm_job *g, const float *tile, int nr, float *out, const float *res) {
    for (int j = 0; j < nr; j++) {
        float v = tile[j];
        if (res) {
            v += res[j];
            v = v < g->residual_lower ? g->residual_lower : v;
            v = v > g->residual_upper ? g->residual_upper : v;
        }
        out[j] = v;
    }
}

// One tile: `mr` (1...6) rows starting at a, one panel, `nr` (1...16) valid columns.
CLS_INLINE void gemm_tile(const int mr, const gemm_job *g, const float *a, const float *panel, const float *bias,
                          int nr, float *c, const float *residual, const char *prefetch, size_t prefetch_lines) {
    const size_t k = g->k, lda = g->lda, ldc = g->ldc;
    float bias_tail[PANEL];
    if (nr < PANEL) {
        for (int j = 0; j < PANEL; j++) bias_tail[j] = j < nr && bias ? bias[j] : 0.0f;
        bias = bias_tail;
    }
    v8 bias0 = bias ? V8_LOAD(bias) : V8_SPLAT(0.0f), bias1 = bias ? V8_LOAD(bias + 8) : V8_SPLAT(0.0f);
    v8 acc[TILE_M][2];
    for (int r = 0; r < TILE_M; r++) {
        if (r < mr) { acc[r][0] = bias0; acc[r][1] = bias1; }
    }
    const float *row[TILE_M];
    for (int r = 0; r < TILE_M; r++) row[r] = a + (size_t)(r < mr ? r : 0) * lda;
    const float *b = panel;
    size_t i = 0;
    if (mr == 1) {
        // One row (the classifier's matrix-vector product, the last row of a map): two
        // accumulators would wait on the FMA latency, so k is split over three more pairs.
        v8 e0 = V8_SPLAT(0.0f), e1 = e0, f0 = e0, f1 = e0, h0 = e0, h1 = e0;
        for (; i + 4 <= k; i += 4, b += 4 * PANEL) {
            v8 x0 = V8_SPLAT(row[0][i]), x1 = V8_SPLAT(row[0][i + 1]);
            v8 x2 = V8_SPLAT(row[0][i + 2]), x3 = V8_SPLAT(row[0][i + 3]);
            acc[0][0] += x0 * V8_LOAD(b); acc[0][1] += x0 * V8_LOAD(b + 8);
            e0 += x1 * V8_LOAD(b + 16); e1 += x1 * V8_LOAD(b + 24);
            f0 += x2 * V8_LOAD(b + 32); f1 += x2 * V8_LOAD(b + 40);
            h0 += x3 * V8_LOAD(b + 48); h1 += x3 * V8_LOAD(b + 56);
        }
        acc[0][0] += (e0 + f0) + h0;
        acc[0][1] += (e1 + f1) + h1;
    }
    for (; i < k; i++, b += PANEL) {
        // One line of the next panel every 8 steps, spread out so the misses overlap the FMAs.
        if ((i & 7) == 0 && (i >> 3) < prefetch_lines) __builtin_prefetch(prefetch + (i >> 3) * 64, 0, GEMM_PREFETCH_LOCALITY);
        v8 b0 = V8_LOAD(b), b1 = V8_LOAD(b + 8);
        for (int r = 0; r < TILE_M; r++) {
            if (r < mr) {
                v8 x = V8_SPLAT(row[r][i]);
                acc[r][0] += x * b0;
                acc[r][1] += x * b1;
            }
        }
    }
    const v8 lo = V8_SPLAT(g->lower), hi = V8_SPLAT(g->upper);
    const v8 rlo = V8_SPLAT(g->residual_lower), rhi = V8_SPLAT(g->residual_upper);
    for (int r = 0; r < TILE_M; r++) {
        if (r >= mr) continue;
        v8 v0 = V8_CLAMP(acc[r][0], lo, hi), v1 = V8_CLAMP(acc[r][1], lo, hi);
        float *out = c + (size_t)r * ldc;
        const float *res = residual ? residual + (size_t)r * ldc : 0;
        if (nr == PANEL) {
            if (res) {
                v0 += V8_LOAD(res); v1 += V8_LOAD(res + 8);
                v0 = V8_CLAMP(v0, rlo, rhi); v1 = V8_CLAMP(v1, rlo, rhi);
            }
            V8_STORE(out, v0);
            V8_STORE(out + 8, v1);
        } else {
            float tile[PANEL];
            V8_STORE(tile, v0);
            V8_STORE(tile + 8, v1);
            gemm_store_partial(g, tile, nr, out, res);
        }
    }
}

// The last panel when at most 8 of its 16 columns are real (n = 24, 40: n mod 16 == 8): a
// 6x16 tile would spend half its FMAs on zero padding, so this tile covers up to 12 rows x 8
// columns instead, again 12 accumulators, with one weight vector and 12 broadcasts per k.
CLS_INLINE void gemm_tile_narrow(const int mr, const gemm_job *g, const float *a, const float *panel,
                                 const float *bias, int nr, float *c, const float *residual) {
    enum { ROWS = 2 * TILE_M };
    const size_t k = g->k, lda = g->lda, ldc = g->ldc;
    float bias_tail[8];
    for (int q = 0; q < 8; q++) bias_tail[q] = q < nr && bias ? bias[q] : 0.0f;
    const v8 bias0 = V8_LOAD(bias_tail);
    v8 acc[ROWS];
    const float *row[ROWS];
    for (int r = 0; r < ROWS; r++) {
        if (r < mr) acc[r] = bias0;
        row[r] = a + (size_t)(r < mr ? r : 0) * lda;
    }
    const float *b = panel;
    for (size_t i = 0; i < k; i++, b += PANEL) {
        v8 b0 = V8_LOAD(b);
        for (int r = 0; r < ROWS; r++)
            if (r < mr) acc[r] += V8_SPLAT(row[r][i]) * b0;
    }
    const v8 lo = V8_SPLAT(g->lower), hi = V8_SPLAT(g->upper);
    for (int r = 0; r < ROWS; r++) {
        if (r >= mr) continue;
        float tile[8];
        V8_STORE(tile, V8_CLAMP(acc[r], lo, hi));
        gemm_store_partial(g, tile, nr, c + (size_t)r * ldc, residual ? residual + (size_t)r * ldc : 0);
    }
}

CLS_INLINE void gemm_rect(const gemm_job *g, size_t block_begin, size_t block_end, size_t panel_begin,
                          size_t panel_end) {
    size_t chunk_blocks = L2_CHUNK_BYTES / (g->k * sizeof(float) * TILE_M);
    if (chunk_blocks < 1) chunk_blocks = 1;
    for (size_t chunk = block_begin; chunk < block_end; chunk += chunk_blocks) {
        size_t chunk_end = chunk + chunk_blocks < block_end ? chunk + chunk_blocks : block_end;
        for (size_t p = panel_begin; p < panel_end; p++) {
            const float *panel = g->packed + p * g->k * PANEL;
            size_t column = p * PANEL;
            int nr = g->n - column < PANEL ? (int)(g->n - column) : PANEL;
            const float *bias = g->bias ? g->bias + column : 0;
            if (nr <= 8) {
                for (size_t blk = chunk; blk < chunk_end; blk += 2) {
                    size_t last = blk + 2 < chunk_end ? blk + 2 : chunk_end;
                    size_t r0 = g->m * blk / g->row_blocks;
                    int mr = (int)(g->m * last / g->row_blocks - r0);
                    const float *a = g->a + r0 * g->lda;
                    float *c = g->c + r0 * g->ldc + column;
                    const float *res = g->residual ? g->residual + r0 * g->ldc + column : 0;
                    switch (mr) {
                    case 12: gemm_tile_narrow(12, g, a, panel, bias, nr, c, res); break;
                    case 11: gemm_tile_narrow(11, g, a, panel, bias, nr, c, res); break;
                    case 10: gemm_tile_narrow(10, g, a, panel, bias, nr, c, res); break;
                    case 9: gemm_tile_narrow(9, g, a, panel, bias, nr, c, res); break;
                    case 8: gemm_tile_narrow(8, g, a, panel, bias, nr, c, res); break;
                    case 7: gemm_tile_narrow(7, g, a, panel, bias, nr, c, res); break;
                    default: gemm_tile(mr, g, a, panel, bias, nr, c, res, 0, 0); break;
                    }
                }
                continue;
            }
            // The weights stream from memory once per inference (18 MB for the whole network, far
            // more than L2), and the 7x7 layers use each panel for only 9 tiles; so every tile of
            // this panel asks for its share of the next panel's lines ahead of time.
            const char *next = p + 1 < panel_end ? (const char *)(panel + g->k * PANEL) : 0;
            const size_t blocks = chunk_end - chunk;
            for (size_t blk = chunk; blk < chunk_end; blk++) {
                const char *prefetch = 0;
                size_t prefetch_lines = 0;
                if (next) {
                    size_t bi = blk - chunk, l0 = g->k * bi / blocks, l1 = g->k * (bi + 1) / blocks;
                    prefetch = next + l0 * 64;
                    prefetch_lines = l1 - l0;
                }
                // Rows are spread evenly over the row blocks (49 = 4 x 6 + 5 x 5, not 8 x 6 + 1):
                // a 5-row tile runs at 5/6 of the speed of a full one, a 1-row tile at 1/4.
                size_t r0 = g->m * blk / g->row_blocks;
                int mr = (int)(g->m * (blk + 1) / g->row_blocks - r0);
                const float *a = g->a + r0 * g->lda;
                float *c = g->c + r0 * g->ldc + column;
                const float *res = g->residual ? g->residual + r0 * g->ldc + column : 0;
                switch (mr) {
                case 6: gemm_tile(6, g, a, panel, bias, nr, c, res, prefetch, prefetch_lines); break;
                case 5: gemm_tile(5, g, a, panel, bias, nr, c, res, prefetch, prefetch_lines); break;
                case 4: gemm_tile(4, g, a, panel, bias, nr, c, res, prefetch, prefetch_lines); break;
                case 3: gemm_tile(3, g, a, panel, bias, nr, c, res, prefetch, prefetch_lines); break;
                case 2: gemm_tile(2, g, a, panel, bias, nr, c, res, prefetch, prefetch_lines); break;
                default: gemm_tile(1, g, a, panel, bias, nr, c, res, prefetch, prefetch_lines); break;
                }
            }
        }
    }
}

CLS_INLINE void gemm_task_body(const gemm_job *g, int task) {
    int mi = task / g->n_tasks, ni = task % g->n_tasks;
    size_t b0 = g->row_blocks * (size_t)mi / (size_t)g->m_tasks, b1 = g->row_blocks * (size_t)(mi + 1) / (size_t)g->m_tasks;
    size_t p0 = g->panels * (size_t)ni / (size_t)g->n_tasks, p1 = g->panels * (size_t)(ni + 1) / (size_t)g->n_tasks;
    gemm_rect(g, b0, b1, p0, p1);
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void gemm_task_avx2(void *context, int task) { gemm_task_body(context, task); }
#endif
static void gemm_task_baseline(void *context, int task) { gemm_task_body(context, task); }

int cls_gemm_avx512_narrow_rows(size_t n) {
    if (n <= PANEL || n > GEMM_AVX512_PANELS * PANEL || n % PANEL == 0 || n % PANEL > 8) return 0;
    return 24 / (int)((n + PANEL - 1) / PANEL);
}

int cls_gemm_avx512_leaves_panel_empty(size_t n) { return n % PANEL != 0 && cls_gemm_avx512_narrow_rows(n) == 0; }

void cls_gemm_packed(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *packed,
                     const float *bias, float lower, float upper, const float *residual, float residual_lower,
                     float residual_upper, float *c, size_t ldc) {
    if (m == 0 || n == 0) return;
    int wide = 0, narrow_rows = 0;
#if CLS_HAS_AVX512_VARIANT
    // Outputs whose last panel is at most half used (n = 24, 40) take tiles of more rows covering
    // every column (gemm_avx512.c); 8 or fewer stay on the AVX2 tiles, whose 12x8 tile wastes no
    // FMAs on padding.
    if (cls_use_avx512()) {
        narrow_rows = cls_gemm_avx512_narrow_rows(n);
        wide = narrow_rows == 0 && n > 8;
    }
#endif
    const size_t tile_m = narrow_rows ? (size_t)narrow_rows : wide ? GEMM_AVX512_TILE_M : TILE_M;
    gemm_job g = {
        .m = m, .n = n, .k = k, .lda = lda, .ldc = ldc, .a = a, .packed = packed, .bias = bias,
        .residual = residual, .c = c, .lower = lower, .upper = upper, .residual_lower = residual_lower,
        .residual_upper = residual_upper, .row_blocks = (m + tile_m - 1) / tile_m,
        .panels = (n + PANEL - 1) / PANEL, .m_tasks = 1, .n_tasks = 1, .panel_step = wide ? GEMM_AVX512_PANELS : 1,
    };
    int threads = cls_parallel_thread_count();
    if (threads > 1) {
        // One band of rows per thread (see parallel.h) whenever every band gets a row block: each
        // core then writes whole pixels and reads only its own rows of the input, most of which it
        // has just written itself, where a cut by output channels makes each core read every row of
        // a map the other one wrote. By channels only when rows are too few (the classifier). On
        // 2 cores (Xeon family 6 model 207) the cut by rows took the network's two-thread latency
        // from 2.90 to 2.79 ms at int8 and from 4.25 to 4.16 ms at fp32.
        int want = threads;
        size_t steps = (g.panels + g.panel_step - 1) / g.panel_step;
        if (g.row_blocks >= (size_t)want) g.m_tasks = want;
        else if (!narrow_rows) g.n_tasks = (size_t)want < steps ? want : (int)steps;
    }
    cls_task_fn fn = gemm_task_baseline;
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) fn = gemm_task_avx2;
#endif
#if CLS_HAS_AVX512_VARIANT
    if (wide) fn = cls_gemm_task_avx512;
    if (narrow_rows) fn = cls_gemm_task_avx512_narrow;
#endif
    cls_parallel_run(fn, &g, g.m_tasks * g.n_tasks);
}
