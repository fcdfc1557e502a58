// Widening binary16 weights to fp32 (the face recognizer's weights are stored as halves).
#include "CClassifyKernels.h"
#include "dispatch.h"
#include "half.h"

#if CLS_HAS_AVX2_VARIANT
#include <immintrin.h>

// 16 halves per step with F16C, the same values as half_to_float for every finite half.
__attribute__((target("avx2,f16c"))) static size_t halves_to_floats_f16c(const uint8_t *halves, size_t count, float *out) {
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m128i low = _mm_loadu_si128((const __m128i *)(halves + 2 * i));
        __m128i high = _mm_loadu_si128((const __m128i *)(halves + 2 * i + 16));
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(low));
        _mm256_storeu_ps(out + i + 8, _mm256_cvtph_ps(high));
    }
    return i;
}
#endif

void cls_halves_to_floats(const void *halves, size_t count, float *out) {
    const uint8_t *bytes = halves;
    size_t done = 0;
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2() && has_f16c()) done = halves_to_floats_f16c(bytes, count, out);
#endif
    // Byte by byte, so the halves are read little-endian on any host (F16C's loads are x86's own).
    for (size_t i = done; i < count; i++) out[i] = half_to_float((uint16_t)(bytes[2 * i] | bytes[2 * i + 1] << 8));
}
