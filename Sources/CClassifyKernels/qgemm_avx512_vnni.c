#include "dispatch.h"
#include "qgemm.h"

// The AVX-512 VNNI body of cls_qgemm (layout in qgemm.h). One group of four inputs of one panel
// is a zmm (16 channels x 4 bytes); vpdpbusd multiplies it by four activation bytes broadcast to
// every lane and adds the four products to each channel's int32 accumulator, exactly (no
// intermediate saturation).
//
// Register tile: 6 rows x 4 panels (64 channels) = 24 zmm accumulators, 4 weight vectors; per
// group of four inputs, 4 loads and 6 broadcasts feed 24 vpdpbusd. The last panel's channels past
// n are masked in the store. The store converts to float and applies the scale, bias, clamp and
// residual exactly as cls_qgemm_store_one does.

#if CLS_HAS_AVX512_VARIANT
#include <immintrin.h>
#include <string.h>

#define CLS_AVX512_VNNI __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx512vnni,avx2,fma")))

enum { ROWS = QGEMM_TILE_M_AVX512, GROUP = QGEMM_GROUP_AVX512, L2_CHUNK_BYTES = 96 * 1024 };

CLS_INLINE __mmask16 columns_mask(int columns) {
    return columns >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << columns) - 1u);
}

CLS_INLINE int32_t load4(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

CLS_AVX512_VNNI CLS_INLINE void tile(const int mr, const int np, const qgemm_job *g, const uint8_t *a,
                                     const int8_t *b, size_t column, int nr_last, float *c, const float *residual) {
    const size_t quads = g->quads, ldq = g->ldq, ldc = g->ldc, stride = quads * QGEMM_PANEL * QGEMM_QUAD;
    __m512i acc[ROWS][GROUP];
    for (int r = 0; r < mr; r++)
        for (int v = 0; v < np; v++) acc[r][v] = _mm512_setzero_si512();
    const uint8_t *row[ROWS];
    for (int r = 0; r < mr; r++) row[r] = a + (size_t)r * ldq;
    for (size_t i = 0; i < quads; i++) {
        __m512i w[GROUP];
        for (int v = 0; v < np; v++) w[v] = _mm512_loadu_si512((const void *)(b + v * stride + i * 64));
        for (int r = 0; r < mr; r++) {
            const __m512i x = _mm512_set1_epi32(load4(row[r] + i * QGEMM_QUAD));
            for (int v = 0; v < np; v++) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], x, w[v]);
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lower), hi = _mm512_set1_ps(g->upper);
    const __m512 rlo = _mm512_set1_ps(g->residual_lower), rhi = _mm512_set1_ps(g->residual_upper);
    for (int v = 0; v < np; v++) {
        const __mmask16 mask = v == np - 1 ? columns_mask(nr_last) : (__mmask16)0xFFFF;
        const size_t col = column + 16 * (size_t)v;
        const __m512i offset = _mm512_maskz_loadu_epi32(mask, g->offset + col);
        const __m512 scale = _mm512_maskz_loadu_ps(mask, g->scale + col);
        const __m512 bias = g->bias ? _mm512_maskz_loadu_ps(mask, g->bias + col) : _mm512_setzero_ps();
        for (int r = 0; r < mr; r++) {
            const __m512 sum = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][v], offset));
            __m512 value = _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(sum, scale, bias), lo), hi);
            float *out = c + (size_t)r * ldc + 16 * v;
            if (residual) {
                value = _mm512_add_ps(value, _mm512_maskz_loadu_ps(mask, residual + (size_t)r * ldc + 16 * v));
                value = _mm512_min_ps(_mm512_max_ps(value, rlo), rhi);
            }
            _mm512_mask_storeu_ps(out, mask, value);
        }
    }
}

#define TILE_CASE(MR, NP) tile(MR, NP, g, a, b, column, nr_last, c, res)

CLS_AVX512_VNNI CLS_INLINE void tile_any(int mr, int np, const qgemm_job *g, const uint8_t *a, const int8_t *b,
                                         size_t column, int nr_last, float *c, const float *res) {
#define ROWS_1_TO_6(NP)                                                                                                \
    case 1: TILE_CASE(1, NP); return;                                                                                  \
    case 2: TILE_CASE(2, NP); return;                                                                                  \
    case 3: TILE_CASE(3, NP); return;                                                                                  \
    case 4: TILE_CASE(4, NP); return;                                                                                  \
    case 5: TILE_CASE(5, NP); return;                                                                                  \
    default: TILE_CASE(6, NP); return;
    switch (np) {
    case 4: switch (mr) { ROWS_1_TO_6(4) } return;
    case 3: switch (mr) { ROWS_1_TO_6(3) } return;
    case 2: switch (mr) { ROWS_1_TO_6(2) } return;
    default: switch (mr) { ROWS_1_TO_6(1) } return;
    }
#undef ROWS_1_TO_6
}

// Rows in chunks that fit in L2 (as the fp32 GEMM), every group of panels sweeping a chunk.
CLS_AVX512_VNNI void cls_qgemm_rect_avx512_vnni(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1) {
    size_t chunk_blocks = L2_CHUNK_BYTES / (g->ldq * ROWS + 1);
    if (chunk_blocks < 1) chunk_blocks = 1;
    for (size_t chunk = b0; chunk < b1; chunk += chunk_blocks) {
        const size_t chunk_end = chunk + chunk_blocks < b1 ? chunk + chunk_blocks : b1;
        for (size_t p = p0; p < p1; p += GROUP) {
            const int np = (int)(p1 - p < GROUP ? p1 - p : GROUP);
            const int8_t *b = g->packed + p * g->quads * QGEMM_PANEL * QGEMM_QUAD;
            const size_t column = p * QGEMM_PANEL;
            const size_t last_column = column + (size_t)(np - 1) * QGEMM_PANEL;
            const int nr_last = g->n - last_column < QGEMM_PANEL ? (int)(g->n - last_column) : QGEMM_PANEL;
            for (size_t blk = chunk; blk < chunk_end; blk++) {
                // Rows spread evenly over the row blocks, as in gemm.c.
                const size_t r0 = g->m * blk / g->row_blocks;
                const int mr = (int)(g->m * (blk + 1) / g->row_blocks - r0);
                const float *res = g->residual ? g->residual + r0 * g->ldc + column : 0;
                tile_any(mr, np, g, g->q + r0 * g->ldq, b, column, nr_last, g->c + r0 * g->ldc + column, res);
            }
        }
    }
}

CLS_AVX512 void cls_quantize_u8_avx512(const float *x, size_t k, const float *multipliers, int zero_point, uint8_t *q) {
    const __m512 low = _mm512_set1_ps(-512.0f), high = _mm512_set1_ps(512.0f);
    const __m512i zp = _mm512_set1_epi32(zero_point), zero = _mm512_setzero_si512(), top = _mm512_set1_epi32(255);
    size_t i = 0;
    for (; i < k; i += 16) {
        const __mmask16 mask = k - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (k - i)) - 1u);
        __m512 f = _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, x + i), _mm512_maskz_loadu_ps(mask, multipliers + i));
        // max/min return the second operand when the first is NaN: NaN goes to -512, as in C.
        f = _mm512_min_ps(_mm512_max_ps(f, low), high);
        __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
        v = _mm512_min_epi32(_mm512_max_epi32(v, zero), top);
        _mm512_mask_cvtepi32_storeu_epi8(q + i, mask, v);
    }
}
#endif
