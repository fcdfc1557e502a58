#include "cls_jpeg_idct_2x2.h"

#include <string.h>

#include "CClassifyKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// jidctred.c's constants at CONST_BITS 13: FIX(3.624509785), FIX(1.272758580), FIX(0.850430095),
// FIX(0.720959822), and its descaling: pass 1 by 13 bits (CONST_BITS - PASS1_BITS + 2), pass 2 by
// 20 (CONST_BITS + PASS1_BITS + 3 + 2), each rounded.
enum { C1 = 29692, C3 = -10426, C5 = 6967, C7 = -5906, PASS1_ROUND = 1 << 12, PASS2_ROUND = 1 << 19 };

// 32-bit adds and subtractions that wrap as the SIMD lanes do.
static inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t saturate16(int32_t v) { return v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v; }
static inline uint8_t sample(int32_t v) { return (uint8_t)((v > 127 ? 127 : v < -128 ? -128 : v) + 128); }

// The odd part of a column or row: sum of the four odd terms, as two pairwise multiply-adds.
static inline int32_t odd_part(int32_t x1, int32_t x3, int32_t x5, int32_t x7) {
    return wrap_add(x1 * C1 + x3 * C3, x5 * C5 + x7 * C7);
}

static void transform_scalar(const int16_t *block, const int16_t quant[64], uint8_t *row0, uint8_t *row1) {
    int16_t d[64];
    for (int i = 0; i < 64; i++) d[i] = (int16_t)(uint16_t)((int32_t)block[i] * quant[i]);  // low 16 bits
    // Pass 1 on columns 0, 1, 3, 5, 7 (pass 2 reads no others): column 0 keeps 32 bits, the others
    // are saturated to 16.
    int32_t first[2], rest[2][8] = {{0}};
    static const int columns[5] = {0, 1, 3, 5, 7};
    for (int k = 0; k < 5; k++) {
        const int c = columns[k];
        const int32_t tmp10 = (int32_t)d[c] * 32768;
        const int32_t tmp0 = odd_part(d[8 + c], d[24 + c], d[40 + c], d[56 + c]);
        const int32_t plus = wrap_add(wrap_add(tmp10, tmp0), PASS1_ROUND) >> 13;
        const int32_t minus = wrap_add(wrap_sub(tmp10, tmp0), PASS1_ROUND) >> 13;
        if (c == 0) {
            first[0] = plus;
            first[1] = minus;
        } else {
            rest[0][c] = saturate16(plus);
            rest[1][c] = saturate16(minus);
        }
    }
    uint8_t *rows[2] = {row0, row1};
    for (int r = 0; r < 2; r++) {
        const int32_t tmp10 = (int32_t)((uint32_t)first[r] << 15);
        const int32_t tmp0 = odd_part(rest[r][1], rest[r][3], rest[r][5], rest[r][7]);
        rows[r][0] = sample(saturate16(wrap_add(wrap_add(tmp10, tmp0), PASS2_ROUND) >> 20));
        rows[r][1] = sample(saturate16(wrap_add(wrap_sub(tmp10, tmp0), PASS2_ROUND) >> 20));
    }
}

#if defined(__x86_64__)
// The SSE2 transform's steps on each 128-bit lane of a vector: P is the intrinsic prefix (_mm_,
// _mm256_, _mm512_), S the width suffix of the bitwise ops, T the vector type; r0..r7 are rows
// 0, 1, 3, 5, 7 of a block per lane, dequantized. Leaves in each lane's bytes 0-3 the samples
// (row 0 col 0, row 0 col 1, row 1 col 0, row 1 col 1).
#define IDCT_2X2_LANES(P, S, T, r0, r1, r3, r5, r7, result)                                                          \
    do {                                                                                                           \
        const T mask = P##set1_epi32((int)0xFFFF0000u);                                                           \
        const T k13 = P##set1_epi32((int)((uint32_t)(uint16_t)C3 << 16 | (uint16_t)C1));                          \
        const T k57 = P##set1_epi32((int)((uint32_t)(uint16_t)C7 << 16 | (uint16_t)C5));                          \
        const T round1 = P##set1_epi32(PASS1_ROUND), round2 = P##set1_epi32(PASS2_ROUND);                        \
        /* Odd parts of columns 0-3 (interleaving the low halves) and of columns 1, 3, 5, 7. */                  \
        const T low = P##add_epi32(P##madd_epi16(P##unpacklo_epi16(r1, r3), k13),                                \
                                   P##madd_epi16(P##unpacklo_epi16(r5, r7), k57));                                \
        const T odd = P##add_epi32(P##madd_epi16(P##or_##S(P##srli_epi32(r1, 16), P##and_##S(r3, mask)), k13),  \
                                   P##madd_epi16(P##or_##S(P##srli_epi32(r5, 16), P##and_##S(r7, mask)), k57)); \
        const T even0 = P##srai_epi32(P##slli_epi32(r0, 16), 1), odd0 = P##srai_epi32(P##and_##S(r0, mask), 1);  \
        T first = P##unpacklo_epi32(P##add_epi32(even0, low), P##sub_epi32(even0, low));                          \
        const T plus = P##add_epi32(odd0, odd), minus = P##sub_epi32(odd0, odd);                                  \
        T w13 = P##unpacklo_epi64(plus, minus), w57 = P##unpackhi_epi64(plus, minus);                             \
        first = P##srai_epi32(P##add_epi32(first, round1), 13);                                                   \
        w13 = P##srai_epi32(P##add_epi32(w13, round1), 13);                                                       \
        w57 = P##srai_epi32(P##add_epi32(w57, round1), 13);                                                       \
        w13 = P##packs_epi32(w13, w13);                                                                           \
        w57 = P##packs_epi32(w57, w57);                                                                           \
        const T tmp0 = P##add_epi32(P##madd_epi16(w13, k13), P##madd_epi16(w57, k57));                            \
        const T tmp10 = P##slli_epi32(first, 15);                                                                 \
        T sum_ = P##unpacklo_epi32(P##add_epi32(tmp10, tmp0), P##sub_epi32(tmp10, tmp0));                          \
        sum_ = P##srai_epi32(P##add_epi32(sum_, round2), 20);                                                       \
        sum_ = P##packs_epi32(sum_, sum_);                                                                           \
        sum_ = P##packs_epi16(sum_, sum_);                                                                           \
        (result) = P##add_epi8(sum_, P##set1_epi8((char)0x80));                                                    \
    } while (0)

static inline __m128i dequantized_row(const int16_t *block, const int16_t *quant, int row) {
    return _mm_mullo_epi16(_mm_loadu_si128((const __m128i *)(block + 8 * row)), _mm_loadu_si128((const __m128i *)(quant + 8 * row)));
}

static void transform_sse2(const int16_t *block, const int16_t quant[64], uint8_t *row0, uint8_t *row1) {
    const __m128i r0 = dequantized_row(block, quant, 0), r1 = dequantized_row(block, quant, 1),
                  r3 = dequantized_row(block, quant, 3), r5 = dequantized_row(block, quant, 5),
                  r7 = dequantized_row(block, quant, 7);
    __m128i out;
    IDCT_2X2_LANES(_mm_, si128, __m128i, r0, r1, r3, r5, r7, out);
    const uint32_t samples = (uint32_t)_mm_cvtsi128_si32(out);
    memcpy(row0, &samples, 2);
    memcpy(row1, (const uint8_t *)&samples + 2, 2);
}

__attribute__((target("avx2"))) static size_t transform_avx2(
    const int16_t *const *blocks, size_t count, const int16_t quant[64], uint8_t *row0, uint8_t *row1) {
    __m256i q[8];
    for (int r = 0; r < 8; r++) q[r] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(quant + 8 * r)));
    const __m256i gather = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    const __m128i split = _mm_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    size_t i = 0;
    for (; i + 2 <= count; i += 2) {
#define ROW2(r)                                                                                                \
    _mm256_mullo_epi16(_mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(blocks[i] + 8 * (r)))), \
                                               _mm_loadu_si128((const __m128i *)(blocks[i + 1] + 8 * (r))), 1),            \
                       q[r])
        const __m256i r0 = ROW2(0), r1 = ROW2(1), r3 = ROW2(3), r5 = ROW2(5), r7 = ROW2(7);
#undef ROW2
        __m256i out;
        IDCT_2X2_LANES(_mm256_, si256, __m256i, r0, r1, r3, r5, r7, out);
        const __m128i both = _mm_shuffle_epi8(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(out, gather)), split);
        const uint32_t first = (uint32_t)_mm_cvtsi128_si32(both), second = (uint32_t)_mm_extract_epi32(both, 1);
        memcpy(row0 + 2 * i, &first, 4);
        memcpy(row1 + 2 * i, &second, 4);
    }
    return i;
}

__attribute__((target("avx512f,avx512bw"))) static size_t transform_avx512(
    const int16_t *const *blocks, size_t count, const int16_t quant[64], uint8_t *row0, uint8_t *row1) {
    __m512i q[8];
    for (int r = 0; r < 8; r++) q[r] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(quant + 8 * r)));
    const __m512i gather = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i split = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
#define LANE(b, r) _mm_loadu_si128((const __m128i *)(blocks[i + (b)] + 8 * (r)))
#define ROW4(r)                                                                                                         \
    _mm512_mullo_epi16(                                                                                                 \
        _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(LANE(0, r)), LANE(1, r), 1), \
                                              LANE(2, r), 2),                                                           \
                           LANE(3, r), 3),                                                                              \
        q[r])
        const __m512i r0 = ROW4(0), r1 = ROW4(1), r3 = ROW4(3), r5 = ROW4(5), r7 = ROW4(7);
#undef ROW4
#undef LANE
        __m512i out;
        IDCT_2X2_LANES(_mm512_, si512, __m512i, r0, r1, r3, r5, r7, out);
        const __m128i rows = _mm_shuffle_epi8(_mm512_castsi512_si128(_mm512_permutexvar_epi32(gather, out)), split);
        _mm_storel_epi64((__m128i *)(row0 + 2 * i), rows);
        _mm_storel_epi64((__m128i *)(row1 + 2 * i), _mm_unpackhi_epi64(rows, rows));
    }
    return i;
}
#endif

int cls_jpeg_idct_2x2_has_path(cls_jpeg_idct_2x2_path path) {
    switch (path) {
    case CLS_JPEG_IDCT_2X2_SCALAR: return 1;
#if defined(__x86_64__)
    case CLS_JPEG_IDCT_2X2_SSE2: return 1;
    case CLS_JPEG_IDCT_2X2_AVX2: return cls_cpu_kernel_level() >= CLS_LEVEL_AVX2;
    case CLS_JPEG_IDCT_2X2_AVX512: return cls_cpu_kernel_level() >= CLS_LEVEL_AVX512;  // F/DQ/BW/VL
#endif
    default: return 0;
    }
}

// The network's kernel level on this thread (CLASSIFY_KERNELS, or what a test set), so a
// measurement of a path covers the decoder too: portable runs plain C.
cls_jpeg_idct_2x2_path cls_jpeg_idct_2x2_best_path(void) {
    switch (cls_kernels_level()) {
#if defined(__x86_64__)
    case CLS_LEVEL_AVX512: return CLS_JPEG_IDCT_2X2_AVX512;
    case CLS_LEVEL_AVX2: return CLS_JPEG_IDCT_2X2_AVX2;
#endif
    default: return CLS_JPEG_IDCT_2X2_SCALAR;
    }
}

void cls_jpeg_idct_2x2(cls_jpeg_idct_2x2_path path, const int16_t *const *blocks, size_t count, const int16_t quant[64],
                       uint8_t *row0, uint8_t *row1) {
    size_t done = 0;
#if defined(__x86_64__)
    if (path == CLS_JPEG_IDCT_2X2_AVX512) done = transform_avx512(blocks, count, quant, row0, row1);
    if (path >= CLS_JPEG_IDCT_2X2_AVX2) done += transform_avx2(blocks + done, count - done, quant, row0 + 2 * done, row1 + 2 * done);
    if (path >= CLS_JPEG_IDCT_2X2_SSE2) {
        for (; done < count; done++) transform_sse2(blocks[done], quant, row0 + 2 * done, row1 + 2 * done);
    }
#endif
    for (; done < count; done++) transform_scalar(blocks[done], quant, row0 + 2 * done, row1 + 2 * done);
}
