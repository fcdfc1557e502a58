#include "dispatch.h"
#include "gemm.h"

// The AVX-512 body of cls_gemm_packed (see gemm.c for the layout): the same panels of 16 output
// channels, one zmm register wide, read four at a time. The four panels of a group lie next to
// each other in memory (panel p starts at p * k * 16), so a group is one contiguous stream.
//
// Register tile: 6 rows x 64 columns = 24 zmm accumulators and 4 weight vectors of the 32
// registers; per k, 4 loads and 6 broadcasts feed 24 FMAs. The last group may have fewer panels
// (the columns past a multiple of 64); widths of 17-24, 33-40 and 49-56 take the narrow tiles at the
// end of this file. The last panel's columns past n
// are masked on load and store, so tails need no scalar code. Bias, clamp and residual are applied in the store as in gemm.c.
//
// The rows of A are taken in chunks that fit in L2; every group sweeps a chunk, and while one
// group's tiles run, each tile prefetches its share of the next group's lines.

#if CLS_HAS_AVX512_VARIANT
#include <immintrin.h>

enum { ROWS = GEMM_AVX512_TILE_M, GROUP = GEMM_AVX512_PANELS, L2_CHUNK_BYTES = 96 * 1024, MAX_ROWS = 12 };

CLS_INLINE __mmask16 columns_mask(int columns) {
    return columns >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << columns) - 1u);
}

// `mr` rows (up to 6, or 12 for the narrow tiles below) from a x `np` panels from b (the group's
// first panel); the last panel has `nr_last` valid columns (1...16).
CLS_AVX512 CLS_INLINE void tile(const int mr, const int np, const gemm_job *g, const float *a, const float *b,
                                const float *bias, int nr_last, float *c, const float *residual,
                                const char *prefetch, size_t prefetch_lines) {
    const size_t k = g->k, lda = g->lda, ldc = g->ldc, stride = k * GEMM_PANEL;
    __m512 acc[MAX_ROWS][GROUP];
    for (int v = 0; v < np; v++) {
        const __mmask16 mask = v == np - 1 ? columns_mask(nr_last) : (__mmask16)0xFFFF;
        const __m512 start = bias ? _mm512_maskz_loadu_ps(mask, bias + 16 * v) : _mm512_setzero_ps();
        for (int r = 0; r < mr; r++) acc[r][v] = start;
    }
    const float *row[MAX_ROWS];
    for (int r = 0; r < mr; r++) row[r] = a + (size_t)r * lda;
    for (size_t i = 0; i < k; i++) {
        if (i < prefetch_lines) _mm_prefetch(prefetch + i * 64, _MM_HINT_T1);
        __m512 w[GROUP];
        for (int v = 0; v < np; v++) w[v] = _mm512_loadu_ps(b + v * stride + i * GEMM_PANEL);
        // Unrolled, so the accumulators stay in registers (clang leaves a 12-row loop rolled).
#pragma clang loop unroll(full)
        for (int r = 0; r < mr; r++) {
            const __m512 x = _mm512_set1_ps(row[r][i]);
            for (int v = 0; v < np; v++) acc[r][v] = _mm512_fmadd_ps(x, w[v], acc[r][v]);
        }
    }
    const __m512 lo = _mm512_set1_ps(g->lower), hi = _mm512_set1_ps(g->upper);
    const __m512 rlo = _mm512_set1_ps(g->residual_lower), rhi = _mm512_set1_ps(g->residual_upper);
    for (int r = 0; r < mr; r++) {
        float *out = c + (size_t)r * ldc;
        const float *res = residual ? residual + (size_t)r * ldc : 0;
        for (int v = 0; v < np; v++) {
            const __mmask16 mask = v == np - 1 ? columns_mask(nr_last) : (__mmask16)0xFFFF;
            __m512 value = _mm512_min_ps(_mm512_max_ps(acc[r][v], lo), hi);
            if (res) {
                value = _mm512_add_ps(value, _mm512_maskz_loadu_ps(mask, res + 16 * v));
                value = _mm512_min_ps(_mm512_max_ps(value, rlo), rhi);
            }
            _mm512_mask_storeu_ps(out + 16 * v, mask, value);
        }
    }
}

#define TILE_CASE(MR, NP) tile(MR, NP, g, a, b, bias, nr_last, c, res, prefetch, prefetch_lines)

// Dispatches to the tile instantiated for (mr, np): mr <= 6 for any np <= 4 (rect's tiles), and
// the narrow tiles' taller ones, mr <= 12 with two panels and mr <= 8 with three.
CLS_AVX512 CLS_INLINE void tile_any(int mr, int np, const gemm_job *g, const float *a, const float *b,
                                    const float *bias, int nr_last, float *c, const float *res, const char *prefetch,
                                    size_t prefetch_lines) {
#define ROWS_1_TO_6(NP)                                                                                                \
    case 1: TILE_CASE(1, NP); return;                                                                                  \
    case 2: TILE_CASE(2, NP); return;                                                                                  \
    case 3: TILE_CASE(3, NP); return;                                                                                  \
    case 4: TILE_CASE(4, NP); return;                                                                                  \
    case 5: TILE_CASE(5, NP); return;                                                                                  \
    case 6: TILE_CASE(6, NP); return;
    switch (np) {
    case 4: switch (mr) { ROWS_1_TO_6(4) } return;
    case 3: switch (mr) { ROWS_1_TO_6(3) case 7: TILE_CASE(7, 3); return; case 8: TILE_CASE(8, 3); return; } return;
    case 2:
        switch (mr) {
            ROWS_1_TO_6(2)
        case 7: TILE_CASE(7, 2); return;
        case 8: TILE_CASE(8, 2); return;
        case 9: TILE_CASE(9, 2); return;
        case 10: TILE_CASE(10, 2); return;
        case 11: TILE_CASE(11, 2); return;
        case 12: TILE_CASE(12, 2); return;
        }
        return;
    default: switch (mr) { ROWS_1_TO_6(1) } return;
    }
#undef ROWS_1_TO_6
}

CLS_AVX512 static void rect(const gemm_job *g, size_t block_begin, size_t block_end, size_t panel_begin,
                            size_t panel_end) {
    size_t chunk_blocks = L2_CHUNK_BYTES / (g->k * sizeof(float) * ROWS);
    if (chunk_blocks < 1) chunk_blocks = 1;
    for (size_t chunk = block_begin; chunk < block_end; chunk += chunk_blocks) {
        const size_t chunk_end = chunk + chunk_blocks < block_end ? chunk + chunk_blocks : block_end;
        for (size_t p = panel_begin; p < panel_end; p += GROUP) {
            const int np = (int)(panel_end - p < GROUP ? panel_end - p : GROUP);
            const float *b = g->packed + p * g->k * GEMM_PANEL;
            const size_t column = p * GEMM_PANEL;
            const size_t last_column = column + (size_t)(np - 1) * GEMM_PANEL;
            const int nr_last = g->n - last_column < GEMM_PANEL ? (int)(g->n - last_column) : GEMM_PANEL;
            const float *bias = g->bias ? g->bias + column : 0;
            // The next group's lines, spread over this group's tiles (a group of the weights is
            // read from memory once per inference; the small maps use it for only a few tiles).
            const size_t next_p = p + GROUP;
            const char *next = next_p < panel_end ? (const char *)(g->packed + next_p * g->k * GEMM_PANEL) : 0;
            const size_t next_np = next ? (panel_end - next_p < GROUP ? panel_end - next_p : GROUP) : 0;
            const size_t next_lines = g->k * next_np;  // 16 floats = one 64-byte line per k and panel
            const size_t tiles = chunk_end - chunk;
            for (size_t blk = chunk, t = 0; blk < chunk_end; blk++, t++) {
                // Rows are spread evenly over the row blocks (49 = 4 x 6 + 5 x 5), as in gemm.c.
                const size_t r0 = g->m * blk / g->row_blocks;
                const int mr = (int)(g->m * (blk + 1) / g->row_blocks - r0);
                const char *prefetch = 0;
                size_t prefetch_lines = 0;
                if (next) {
                    const size_t l0 = next_lines * t / tiles, l1 = next_lines * (t + 1) / tiles;
                    prefetch = next + l0 * 64;
                    prefetch_lines = l1 - l0;
                    if (prefetch_lines > g->k) prefetch_lines = g->k;
                }
                const float *a = g->a + r0 * g->lda;
                float *c = g->c + r0 * g->ldc + column;
                const float *res = g->residual ? g->residual + r0 * g->ldc + column : 0;
                tile_any(mr, np, g, a, b, bias, nr_last, c, res, prefetch, prefetch_lines);
            }
        }
    }
}

// MARK: - Narrow outputs

// Outputs of 17-24, 33-40 or 49-56 channels (Lite0's projections to 24 and 40), whose last panel
// holds at most 8 columns: rect's 6-row tile would give them 12 or 18 accumulators for 24 or 40
// real columns. Here the same tile covers every column of more rows, 12 x 2 panels, 8 x 3 or 6 x 4:
// 24 accumulators, each row's broadcast shared by all its panels; A is read once and the few packed
// weights stay in cache (no chunking or prefetch). The last panel is half padding, but the FMA
// costs the same: a ymm FMA beside zmm ones has one port, not two. Measured per layer (Xeon family
// 6 model 207, fp32): 56x56 x 96 -> 24 0.205 -> 0.122 ms, 28x28 x 144 -> 40 0.114 -> 0.064 ms
// against the AVX2 tiles these widths took before. Full panels (16, 32, 48, 64) gained nothing
// from taller tiles (BlazeFace's layers, Lite0's 112x112 x 32 -> 16), so they stay on rect.

CLS_AVX512 void cls_gemm_task_avx512_narrow(void *context, int task) {
    const gemm_job *g = context;
    const int np = (int)g->panels, nr_last = (int)(g->n - (g->panels - 1) * GEMM_PANEL);
    const size_t b0 = g->row_blocks * (size_t)task / (size_t)g->m_tasks;
    const size_t b1 = g->row_blocks * (size_t)(task + 1) / (size_t)g->m_tasks;
    for (size_t blk = b0; blk < b1; blk++) {
        // Rows spread evenly over the row blocks, as in rect.
        const size_t r0 = g->m * blk / g->row_blocks;
        const int mr = (int)(g->m * (blk + 1) / g->row_blocks - r0);
        const float *a = g->a + r0 * g->lda;
        float *c = g->c + r0 * g->ldc;
        const float *res = g->residual ? g->residual + r0 * g->ldc : 0;
        tile_any(mr, np, g, a, g->packed, g->bias, nr_last, c, res, 0, 0);
    }
}

CLS_AVX512 void cls_gemm_task_avx512(void *context, int task) {
    const gemm_job *g = context;
    const int mi = task / g->n_tasks, ni = task % g->n_tasks;
    const size_t b0 = g->row_blocks * (size_t)mi / (size_t)g->m_tasks;
    const size_t b1 = g->row_blocks * (size_t)(mi + 1) / (size_t)g->m_tasks;
    const size_t steps = (g->panels + g->panel_step - 1) / g->panel_step;
    size_t p0 = steps * (size_t)ni / (size_t)g->n_tasks * g->panel_step;
    size_t p1 = steps * (size_t)(ni + 1) / (size_t)g->n_tasks * g->panel_step;
    if (p1 > g->panels) p1 = g->panels;
    if (p0 < p1) rect(g, b0, b1, p0, p1);
}
#endif
