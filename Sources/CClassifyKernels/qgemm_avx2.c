#include "dispatch.h"
#include "qgemm.h"

// The AVX2 body of cls_qgemm for CPUs without VNNI (layout in qgemm.h), on vpmaddubsw.
//
// vpmaddubsw multiplies unsigned bytes by signed bytes and adds adjacent pairs into int16 with
// signed saturation: with activations up to 255 and weights down to -127, a pair can reach
// 2 x 255 x 127 = 64770 and would be clipped at 32767, silently. Instead of narrowing the weights
// or activations to 7 bits (which would change the model's numbers on this path only), each
// activation byte a is split into a = 2h + l with h = a >> 1 (0...127) and l = a & 1: a pair of
// h x w is at most 2 x 127 x 127 = 32258 (2 x 127 x 128 = 32512 even for a weight of -128) and a
// pair of l x w at most 256, so neither can saturate. vpmaddwd then widens each to int32,
// multiplying the h pairs by 2 and the l pairs by 1, and sums pairs again: the accumulator gets
// exactly sum a w, as vpdpbusd would compute it, at the cost of two vpmaddubsw and two vpmaddwd
// per weight vector instead of one vpdpbusd.
//
// Register tile: 4 rows x 1 panel = 8 ymm accumulators, 2 weight vectors, the split broadcast
// (2) and the two multiplier constants of the 16 ymm registers.

#if CLS_HAS_AVX2_VARIANT
#include <immintrin.h>
#include <string.h>

enum { ROWS = QGEMM_TILE_M_AVX2 };

CLS_AVX2 void cls_qgemm_store8_avx2(const qgemm_job *g, const int32_t *sums, size_t column, int nr, float *out,
                                    const float *res) {
    if (nr < 8) {
        for (int j = 0; j < nr; j++) out[j] = cls_qgemm_store_one(g, sums[j], column + j, res ? res + j : 0);
        return;
    }
    const __m256i offset = _mm256_loadu_si256((const __m256i *)(g->offset + column));
    const __m256i acc = _mm256_loadu_si256((const __m256i *)sums);
    const __m256 bias = g->bias ? _mm256_loadu_ps(g->bias + column) : _mm256_setzero_ps();
    const __m256 sum = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc, offset));
    __m256 value = _mm256_fmadd_ps(sum, _mm256_loadu_ps(g->scale + column), bias);
    value = _mm256_min_ps(_mm256_max_ps(value, _mm256_set1_ps(g->lower)), _mm256_set1_ps(g->upper));
    if (res) {
        value = _mm256_add_ps(value, _mm256_loadu_ps(res));
        value = _mm256_min_ps(_mm256_max_ps(value, _mm256_set1_ps(g->residual_lower)), _mm256_set1_ps(g->residual_upper));
    }
    _mm256_storeu_ps(out, value);
}

CLS_AVX2 void cls_qgemm_store_tile16_avx2(const qgemm_job *g, const void *accumulators, int mr, size_t column, int nr,
                                          float *c, const float *residual) {
    const __m256i (*acc)[2] = (const __m256i (*)[2])accumulators;
    for (int r = 0; r < mr; r++) {
        float *out = c + (size_t)r * g->ldc;
        const float *res = residual ? residual + (size_t)r * g->ldc : 0;
        int32_t sums[16];
        _mm256_storeu_si256((__m256i *)sums, acc[r][0]);
        _mm256_storeu_si256((__m256i *)(sums + 8), acc[r][1]);
        cls_qgemm_store8_avx2(g, sums, column, nr < 8 ? nr : 8, out, res);
        if (nr > 8) cls_qgemm_store8_avx2(g, sums + 8, column + 8, nr - 8, out + 8, res ? res + 8 : 0);
    }
}

CLS_AVX2 CLS_INLINE void tile(const int mr, const qgemm_job *g, const uint8_t *a, const int8_t *b, size_t column,
                              int nr, float *c, const float *residual) {
    const size_t quads = g->quads, ldq = g->ldq;
    const __m256i ones = _mm256_set1_epi16(1), twos = _mm256_set1_epi16(2);
    const __m256i low7 = _mm256_set1_epi8(0x7F), bit0 = _mm256_set1_epi8(1);
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
            // 16-bit shift then mask: the bit shifted in from the neighbouring byte is cleared.
            const __m256i high = _mm256_and_si256(_mm256_srli_epi16(x, 1), low7);
            const __m256i low = _mm256_and_si256(x, bit0);
            acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(high, w0), twos));
            acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(low, w0), ones));
            acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(high, w1), twos));
            acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(low, w1), ones));
        }
    }
    cls_qgemm_store_tile16_avx2(g, acc, mr, column, nr, c, residual);
}

CLS_AVX2 static void tile_any(int mr, const qgemm_job *g, const uint8_t *a, const int8_t *b, size_t column, int nr,
                              float *c, const float *res) {
    switch (mr) {
    case 1: tile(1, g, a, b, column, nr, c, res); return;
    case 2: tile(2, g, a, b, column, nr, c, res); return;
    case 3: tile(3, g, a, b, column, nr, c, res); return;
    default: tile(4, g, a, b, column, nr, c, res); return;
    }
}

void cls_qgemm_rect_avx2(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1) {
    cls_qgemm_rect_panels(g, b0, b1, p0, p1, tile_any);
}

CLS_AVX2 void cls_quantize_u8_avx2(const float *x, size_t k, const float *multipliers, int zero_point, uint8_t *q) {
    const __m256 low = _mm256_set1_ps(-512.0f), high = _mm256_set1_ps(512.0f);
    const __m256i zp = _mm256_set1_epi32(zero_point), zero = _mm256_setzero_si256(), top = _mm256_set1_epi32(255);
    size_t i = 0;
    for (; i + 8 <= k; i += 8) {
        __m256 f = _mm256_mul_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(multipliers + i));
        f = _mm256_min_ps(_mm256_max_ps(f, low), high);  // NaN -> -512 (second operand), as in C
        __m256i v = _mm256_add_epi32(_mm256_cvtps_epi32(f), zp);
        v = _mm256_min_epi32(_mm256_max_epi32(v, zero), top);
        int32_t lanes[8];
        _mm256_storeu_si256((__m256i *)lanes, v);
        for (int j = 0; j < 8; j++) q[i + j] = (uint8_t)lanes[j];
    }
    for (; i < k; i++) q[i] = cls_quantize_one(x[i], multipliers[i], zero_point);
}
#endif
