#include "dispatch.h"
#include "qgemm.h"

// The AVX-VNNI body of cls_qgemm (layout in qgemm.h): the 256-bit, VEX-encoded vpdpbusd of
// Alder Lake and later cores, which have it without AVX-512. A panel's group of four inputs is
// two ymm (channels 0-7 and 8-15); one broadcast of four activation bytes feeds both.
//
// Register tile: 6 rows x 1 panel = 12 ymm accumulators, 2 weight vectors and one broadcast of
// the 16 ymm registers. Channels past n in the last panel are stored one by one.

#if CLS_HAS_AVX512_VARIANT
#include <immintrin.h>
#include <string.h>

#define CLS_AVX_VNNI __attribute__((target("avxvnni,avx2,fma")))

enum { ROWS = QGEMM_TILE_M_AVX_VNNI };

CLS_AVX_VNNI CLS_INLINE void tile(const int mr, const qgemm_job *g, const uint8_t *a, const int8_t *b, size_t column,
                                  int nr, float *c, const float *residual) {
    const size_t quads = g->quads, ldq = g->ldq;
    __m256i acc[ROWS][2];
    for (int r = 0; r < mr; r++) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
    const uint8_t *row[ROWS];
    for (int r = 0; r < mr; r++) row[r] = a + (size_t)r * ldq;
    for (size_t i = 0; i < quads; i++) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)(b + i * 64));
        const __m256i w1 = _mm256_loadu_si256((const __m256i *)(b + i * 64 + 32));
        for (int r = 0; r < mr; r++) {
            int32_t four;
            memcpy(&four, row[r] + i * QGEMM_QUAD, 4);
            const __m256i x = _mm256_set1_epi32(four);
            acc[r][0] = _mm256_dpbusd_avx_epi32(acc[r][0], x, w0);
            acc[r][1] = _mm256_dpbusd_avx_epi32(acc[r][1], x, w1);
        }
    }
    cls_qgemm_store_tile16_avx2(g, acc, mr, column, nr, c, residual);
}

CLS_AVX_VNNI static void tile_any(int mr, const qgemm_job *g, const uint8_t *a, const int8_t *b, size_t column, int nr,
                              float *c, const float *res) {
    switch (mr) {
    case 1: tile(1, g, a, b, column, nr, c, res); return;
    case 2: tile(2, g, a, b, column, nr, c, res); return;
    case 3: tile(3, g, a, b, column, nr, c, res); return;
    case 4: tile(4, g, a, b, column, nr, c, res); return;
    case 5: tile(5, g, a, b, column, nr, c, res); return;
    default: tile(6, g, a, b, column, nr, c, res); return;
    }
}

void cls_qgemm_rect_avx_vnni(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1) {
    cls_qgemm_rect_panels(g, b0, b1, p0, p1, tile_any);
}
#endif
