#include "CClassifyKernels.h"
#include "dispatch.h"
#include "parallel.h"
#include "vec.h"

// A pointwise convolution whose weights are mostly zero (MediaPipe's "sparse" BlazeFace prunes
// 70% of every 1x1 convolution's weights), computing only the nonzero products.
//
// The dense GEMM vectorizes over output channels, where a zero weight cannot be skipped unless
// all eight of its vector are zero. Here the vectors run over pixels instead (as XNNPACK's sparse
// inference does in NCHW): a tile of 32 pixels is transposed to [in channel][32 pixels] in
// scratch, then each output channel is its bias plus, for each of its nonzero weights, the
// weight times one row of that tile (four vectors); the 32 x n results are transposed back into
// the NHWC output, with the residual added in the same store.

enum { SP_TILE = 32 };

typedef struct {
    size_t m;
    int n, k;
    const float *a;
    const int *row_start, *offset;
    const float *value, *bias;
    float lower, upper;
    const float *residual;
    float residual_lower, residual_upper;
    float *c;
    float *scratch;
    size_t task_floats, tiles;
    int tasks;
} sp_job;

// dst[j * dst_stride + i] = src[i * src_stride + j] for i, j < 8.
CLS_INLINE void sp_transpose8(const float *src, size_t src_stride, float *dst, size_t dst_stride) {
    v8 r0 = V8_LOAD(src), r1 = V8_LOAD(src + src_stride), r2 = V8_LOAD(src + 2 * src_stride), r3 = V8_LOAD(src + 3 * src_stride);
    v8 r4 = V8_LOAD(src + 4 * src_stride), r5 = V8_LOAD(src + 5 * src_stride), r6 = V8_LOAD(src + 6 * src_stride),
       r7 = V8_LOAD(src + 7 * src_stride);
    v8 t0 = __builtin_shufflevector(r0, r1, 0, 8, 1, 9, 4, 12, 5, 13), t1 = __builtin_shufflevector(r0, r1, 2, 10, 3, 11, 6, 14, 7, 15);
    v8 t2 = __builtin_shufflevector(r2, r3, 0, 8, 1, 9, 4, 12, 5, 13), t3 = __builtin_shufflevector(r2, r3, 2, 10, 3, 11, 6, 14, 7, 15);
    v8 t4 = __builtin_shufflevector(r4, r5, 0, 8, 1, 9, 4, 12, 5, 13), t5 = __builtin_shufflevector(r4, r5, 2, 10, 3, 11, 6, 14, 7, 15);
    v8 t6 = __builtin_shufflevector(r6, r7, 0, 8, 1, 9, 4, 12, 5, 13), t7 = __builtin_shufflevector(r6, r7, 2, 10, 3, 11, 6, 14, 7, 15);
    v8 s0 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13), s1 = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    v8 s2 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13), s3 = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
    v8 s4 = __builtin_shufflevector(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13), s5 = __builtin_shufflevector(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
    v8 s6 = __builtin_shufflevector(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13), s7 = __builtin_shufflevector(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
    V8_STORE(dst, __builtin_shufflevector(s0, s4, 0, 1, 2, 3, 8, 9, 10, 11));
    V8_STORE(dst + dst_stride, __builtin_shufflevector(s1, s5, 0, 1, 2, 3, 8, 9, 10, 11));
    V8_STORE(dst + 2 * dst_stride, __builtin_shufflevector(s2, s6, 0, 1, 2, 3, 8, 9, 10, 11));
    V8_STORE(dst + 3 * dst_stride, __builtin_shufflevector(s3, s7, 0, 1, 2, 3, 8, 9, 10, 11));
    V8_STORE(dst + 4 * dst_stride, __builtin_shufflevector(s0, s4, 4, 5, 6, 7, 12, 13, 14, 15));
    V8_STORE(dst + 5 * dst_stride, __builtin_shufflevector(s1, s5, 4, 5, 6, 7, 12, 13, 14, 15));
    V8_STORE(dst + 6 * dst_stride, __builtin_shufflevector(s2, s6, 4, 5, 6, 7, 12, 13, 14, 15));
    V8_STORE(dst + 7 * dst_stride, __builtin_shufflevector(s3, s7, 4, 5, 6, 7, 12, 13, 14, 15));
}

// at[i * SP_TILE + p] = a[p][i] for the tile's `rows` pixels, zero for the pixels past them.
CLS_INLINE void sp_load_tile(const sp_job *j, const float *a, int rows, float *at) {
    const int k = j->k;
    if (rows == SP_TILE && k % 8 == 0) {
        for (int i = 0; i < k; i += 8)
            for (int p = 0; p < SP_TILE; p += 8) sp_transpose8(a + (size_t)p * k + i, (size_t)k, at + (size_t)i * SP_TILE + p, SP_TILE);
        return;
    }
    for (int i = 0; i < k; i++)
        for (int p = 0; p < SP_TILE; p++) at[(size_t)i * SP_TILE + p] = p < rows ? a[(size_t)p * k + i] : 0.0f;
}

// acc[v] += value * at[offset + 8v] for the nonzeros q0 ..< q1 of one output channel.
CLS_INLINE void sp_accumulate(const sp_job *j, const int vectors, const float *at, int q0, int q1, v8 *acc) {
    for (int q = q0; q < q1; q++) {
        const float *x = at + j->offset[q];
        const v8 w = V8_SPLAT(j->value[q]);
        for (int v = 0; v < 4; v++)
            if (v < vectors) acc[v] += w * V8_LOAD(x + 8 * v);
    }
}

// ct[o * SP_TILE + p] = clamp(bias[o] + sum over o's nonzeros of value * at[index][p]), for the
// first `vectors` groups of 8 pixels (a tile's last pixels need fewer: 6x6 = 36 pixels is one
// full tile and one vector, not two full tiles). Two output channels run side by side, so eight
// FMA chains are in flight for the nonzeros they both have, then each finishes alone; the clamp
// is left out when there is none (`clamp` 0: BlazeFace's 1x1 convolutions before their Add).
CLS_INLINE void sp_multiply(const sp_job *j, const int vectors, const int clamp, const float *at, float *ct) {
    const v8 lo = V8_SPLAT(j->lower), hi = V8_SPLAT(j->upper);
    int o = 0;
    for (; o + 2 <= j->n; o += 2) {
        v8 a[4], b[4];
        const v8 bias_a = V8_SPLAT(j->bias ? j->bias[o] : 0.0f), bias_b = V8_SPLAT(j->bias ? j->bias[o + 1] : 0.0f);
        for (int v = 0; v < 4; v++) {
            a[v] = bias_a;
            b[v] = bias_b;
        }
        int qa = j->row_start[o], qb = j->row_start[o + 1];
        const int ea = j->row_start[o + 1], eb = j->row_start[o + 2];
        for (; qa < ea && qb < eb; qa++, qb++) {
            const float *x = at + j->offset[qa], *y = at + j->offset[qb];
            const v8 w = V8_SPLAT(j->value[qa]), u = V8_SPLAT(j->value[qb]);
            for (int v = 0; v < 4; v++) {
                if (v < vectors) {
                    a[v] += w * V8_LOAD(x + 8 * v);
                    b[v] += u * V8_LOAD(y + 8 * v);
                }
            }
        }
        sp_accumulate(j, vectors, at, qa, ea, a);
        sp_accumulate(j, vectors, at, qb, eb, b);
        float *out = ct + (size_t)o * SP_TILE;
        for (int v = 0; v < 4; v++) {
            if (v < vectors) {
                V8_STORE(out + 8 * v, clamp ? V8_CLAMP(a[v], lo, hi) : a[v]);
                V8_STORE(out + SP_TILE + 8 * v, clamp ? V8_CLAMP(b[v], lo, hi) : b[v]);
            }
        }
    }
    if (o < j->n) {
        v8 a[4];
        const v8 bias_a = V8_SPLAT(j->bias ? j->bias[o] : 0.0f);
        for (int v = 0; v < 4; v++) a[v] = bias_a;
        sp_accumulate(j, vectors, at, j->row_start[o], j->row_start[o + 1], a);
        float *out = ct + (size_t)o * SP_TILE;
        for (int v = 0; v < 4; v++)
            if (v < vectors) V8_STORE(out + 8 * v, clamp ? V8_CLAMP(a[v], lo, hi) : a[v]);
    }
}

// c[p][o] = ct[o][p] for the tile's rows, then the residual added and clamped (read before c is
// written, so residual may equal c).
CLS_INLINE void sp_store_tile(const sp_job *j, const float *ct, int rows, float *c, const float *residual) {
    const int n = j->n;
    if (rows == SP_TILE && n % 8 == 0) {
        float block[64];
        const v8 rlo = V8_SPLAT(j->residual_lower), rhi = V8_SPLAT(j->residual_upper);
        for (int o = 0; o < n; o += 8) {
            for (int p = 0; p < SP_TILE; p += 8) {
                float *target = c + (size_t)p * n + o;
                if (!residual) {
                    sp_transpose8(ct + (size_t)o * SP_TILE + p, SP_TILE, target, (size_t)n);
                    continue;
                }
                sp_transpose8(ct + (size_t)o * SP_TILE + p, SP_TILE, block, 8);
                const float *res = residual + (size_t)p * n + o;
                for (int r = 0; r < 8; r++)
                    V8_STORE(target + (size_t)r * n, V8_CLAMP(V8_LOAD(block + r * 8) + V8_LOAD(res + (size_t)r * n), rlo, rhi));
            }
        }
        return;
    }
    for (int p = 0; p < rows; p++) {
        for (int o = 0; o < n; o++) {
            float v = ct[(size_t)o * SP_TILE + p];
            if (residual) {
                v += residual[(size_t)p * n + o];
                v = v < j->residual_lower ? j->residual_lower : v;
                v = v > j->residual_upper ? j->residual_upper : v;
            }
            c[(size_t)p * n + o] = v;
        }
    }
}

CLS_INLINE void sp_task_body(const sp_job *j, int task) {
    float *at = j->scratch + (size_t)task * j->task_floats, *ct = at + (size_t)j->k * SP_TILE;
    const size_t first = j->tiles * (size_t)task / (size_t)j->tasks, last = j->tiles * (size_t)(task + 1) / (size_t)j->tasks;
    for (size_t tile = first; tile < last; tile++) {
        const size_t p0 = tile * SP_TILE;
        const int rows = j->m - p0 < SP_TILE ? (int)(j->m - p0) : SP_TILE;
        sp_load_tile(j, j->a + p0 * (size_t)j->k, rows, at);
        const int clamp = j->lower != -__builtin_inff() || j->upper != __builtin_inff();
        switch ((rows + 7) / 8 + (clamp ? 4 : 0)) {
        case 4: sp_multiply(j, 4, 0, at, ct); break;
        case 3: sp_multiply(j, 3, 0, at, ct); break;
        case 2: sp_multiply(j, 2, 0, at, ct); break;
        case 1: sp_multiply(j, 1, 0, at, ct); break;
        case 8: sp_multiply(j, 4, 1, at, ct); break;
        case 7: sp_multiply(j, 3, 1, at, ct); break;
        case 6: sp_multiply(j, 2, 1, at, ct); break;
        default: sp_multiply(j, 1, 1, at, ct); break;
        }
        sp_store_tile(j, ct, rows, j->c + p0 * (size_t)j->n, j->residual ? j->residual + p0 * (size_t)j->n : 0);
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void sp_task_avx2(void *context, int task) { sp_task_body(context, task); }
#endif
static void sp_task_baseline(void *context, int task) { sp_task_body(context, task); }

size_t cls_sparse_pointwise_scratch(int k, int n) { return (size_t)(k + n) * SP_TILE; }

void cls_sparse_pointwise_offsets(const int *index, size_t count, int *offset) {
    for (size_t q = 0; q < count; q++) offset[q] = index[q] * SP_TILE;
}

void cls_sparse_pointwise(size_t m, int n, int k, const float *a, const int *row_start, const int *offset,
                          const float *value, const float *bias, float lower, float upper, const float *residual,
                          float residual_lower, float residual_upper, float *c, float *scratch, size_t scratch_floats) {
    if (m == 0 || n == 0) return;
    sp_job j = {
        .m = m, .n = n, .k = k, .a = a, .row_start = row_start, .offset = offset, .value = value, .bias = bias,
        .lower = lower, .upper = upper, .residual = residual, .residual_lower = residual_lower,
        .residual_upper = residual_upper, .c = c, .scratch = scratch,
        .task_floats = cls_sparse_pointwise_scratch(k, n), .tiles = (m + SP_TILE - 1) / SP_TILE,
    };
    int tasks = cls_parallel_thread_count();
    size_t fit = scratch_floats / j.task_floats;
    if ((size_t)tasks > fit) tasks = (int)fit;
    if ((size_t)tasks > j.tiles) tasks = (int)j.tiles;
    if (tasks < 1) tasks = 1;
    j.tasks = tasks;
    cls_task_fn fn = sp_task_baseline;
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) fn = sp_task_avx2;
#endif
    cls_parallel_run(fn, &j, tasks);
}
