// Dot products of fp32 query vectors with rows stored as IEEE binary16 (feature prints).
// The AVX2 variant converts 8 halves at a time with F16C (vcvtph2ps) and accumulates with FMA;
// the baseline converts exactly in integer arithmetic. Both accumulate in fp32.
#include "CClassifyKernels.h"
#include "dispatch.h"
#include "half.h"

#if CLS_HAS_AVX2_VARIANT
#include <immintrin.h>
#endif

static void half_dot_block_scalar(const float *queries, size_t query_count, const uint16_t *rows, size_t count,
                                  size_t dim, float *out) {
    for (size_t r = 0; r < count; r++) {
        const uint16_t *row = rows + r * dim;
        for (size_t q = 0; q < query_count; q++) {
            const float *query = queries + q * dim;
            float sum = 0;
            for (size_t k = 0; k < dim; k++) sum += query[k] * half_to_float(row[k]);
            out[q * count + r] = sum;
        }
    }
}

#if CLS_HAS_AVX2_VARIANT
__attribute__((target("avx2,fma,f16c"))) static float horizontal_sum(__m256 v) {
    __m128 low = _mm256_castps256_ps128(v), high = _mm256_extractf128_ps(v, 1);
    __m128 sum = _mm_add_ps(low, high);
    sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
    sum = _mm_add_ss(sum, _mm_shuffle_ps(sum, sum, 1));
    return _mm_cvtss_f32(sum);
}

// Up to 4 queries per pass over the rows: each converted row vector feeds 4 FMAs.
__attribute__((target("avx2,fma,f16c"))) static void half_dot_block_avx2(
    const float *queries, size_t query_count, const uint16_t *rows, size_t count, size_t dim, float *out) {
    size_t vector_dim = dim & ~(size_t)7;
    for (size_t q0 = 0; q0 < query_count; q0 += 4) {
        size_t n = query_count - q0 < 4 ? query_count - q0 : 4;
        const float *q[4];
        for (size_t i = 0; i < 4; i++) q[i] = queries + (q0 + (i < n ? i : 0)) * dim;
        for (size_t r = 0; r < count; r++) {
            const uint16_t *row = rows + r * dim;
            __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
                   s3 = _mm256_setzero_ps();
            for (size_t k = 0; k < vector_dim; k += 8) {
                __m256 x = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + k)));
                s0 = _mm256_fmadd_ps(_mm256_loadu_ps(q[0] + k), x, s0);
                s1 = _mm256_fmadd_ps(_mm256_loadu_ps(q[1] + k), x, s1);
                s2 = _mm256_fmadd_ps(_mm256_loadu_ps(q[2] + k), x, s2);
                s3 = _mm256_fmadd_ps(_mm256_loadu_ps(q[3] + k), x, s3);
            }
            float sums[4] = { horizontal_sum(s0), horizontal_sum(s1), horizontal_sum(s2), horizontal_sum(s3) };
            for (size_t k = vector_dim; k < dim; k++) {
                float x = half_to_float(row[k]);
                for (size_t i = 0; i < 4; i++) sums[i] += q[i][k] * x;
            }
            for (size_t i = 0; i < n; i++) out[(q0 + i) * count + r] = sums[i];
        }
    }
}

#endif

void cls_half_dot_block(const float *queries, size_t query_count, const uint16_t *rows, size_t count, size_t dim,
                        float *out) {
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2() && has_f16c()) {
        half_dot_block_avx2(queries, query_count, rows, count, dim, out);
        return;
    }
#endif
    half_dot_block_scalar(queries, query_count, rows, count, dim, out);
}
