// Dot products of an fp32 query with 4-bit print sketches (TagIndex's PrintSketch): each sketch is
// a 16-byte header (offset, step, error bound as little-endian floats, then a uint32 mode) and
// dim/2 bytes of codes. With c a value's code in 0...15 and f(n) = n (mode bit 0 clear) or n * n
// (set), the value is offset + step * f(c), or, when mode bit 1 is set, exactly 0 for c = 0 and
// offset + step * f(c - 1) otherwise. Codes come in groups of 32 values: byte j of a group's 16
// bytes holds value j in its low nibble and value 16 + j in its high nibble, so one 16-byte load
// gives 32 codes with one shift and two masks. The baseline (double sums) is the reference; the
// AVX2 variant sums in float (8 lanes x 4 accumulators), so results agree to float rounding.
#include "CClassifyKernels.h"
#include "dispatch.h"
#include <string.h>

#if CLS_HAS_AVX2_VARIANT
#include <immintrin.h>
#endif

typedef struct { float offset, step, error; uint32_t mode; } sketch_header;

CLS_INLINE sketch_header read_header(const uint8_t *sketch) {
    sketch_header header;
    memcpy(&header, sketch, sizeof header);
    return header;
}

static void sketch_dot_block_scalar(const float *query, const uint8_t *sketches, size_t count, size_t dim, float *out) {
    size_t stride = CLS_SKETCH_HEADER_BYTES + dim / 2;
    for (size_t r = 0; r < count; r++) {
        const uint8_t *sketch = sketches + r * stride;
        sketch_header header = read_header(sketch);
        const uint8_t *codes = sketch + CLS_SKETCH_HEADER_BYTES;
        int square = header.mode & 1, zero_coded = (header.mode >> 1) & 1;
        double sum = 0;
        for (size_t group = 0; group < dim / 32; group++) {
            for (size_t j = 0; j < 32; j++) {
                uint8_t byte = codes[group * 16 + (j & 15)];
                int code = j < 16 ? byte & 15 : byte >> 4;
                double value;
                if (zero_coded && code == 0) {
                    value = 0;
                } else {
                    double n = (double)(zero_coded ? code - 1 : code);
                    value = (double)header.offset + (double)header.step * (square ? n * n : n);
                }
                sum += (double)query[group * 32 + j] * value;
            }
        }
        out[r] = (float)sum;
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static float horizontal_sum8(__m256 v) {
    __m128 sum = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
    sum = _mm_add_ss(sum, _mm_shuffle_ps(sum, sum, 1));
    return _mm_cvtss_f32(sum);
}

// Eight codes (the low 8 bytes of `bytes`) as floats.
CLS_AVX2 static inline __m256 codes_to_floats(__m128i bytes) {
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
}

// One print: `sum` gets sum q * f(n) and `mask` sum q * [c > 0] (zero-coded modes only), with
// n = c or c - 1 clamped at 0 (so a zero code adds nothing to either sum in zero-coded modes).
CLS_AVX2 static inline __attribute__((always_inline)) void sketch_sums(const float *query, const uint8_t *codes, size_t dim, int square, int zero_coded,
                            float *sum_out, float *mask_out) {
    const __m128i nibble = _mm_set1_epi8(15);
    const __m256 one = _mm256_set1_ps(1), zero = _mm256_setzero_ps();
    __m256 s[4] = { zero, zero, zero, zero }, m[4] = { zero, zero, zero, zero };
    for (size_t group = 0; group < dim / 32; group++) {
        __m128i bytes = _mm_loadu_si128((const __m128i *)(codes + group * 16));
        __m128i low = _mm_and_si128(bytes, nibble), high = _mm_and_si128(_mm_srli_epi16(bytes, 4), nibble);
        __m256 c[4] = { codes_to_floats(low), codes_to_floats(_mm_srli_si128(low, 8)), codes_to_floats(high),
                        codes_to_floats(_mm_srli_si128(high, 8)) };
        const float *q = query + group * 32;
        for (int i = 0; i < 4; i++) {
            __m256 qi = _mm256_loadu_ps(q + 8 * i), n = c[i];
            if (zero_coded) {
                m[i] = _mm256_fmadd_ps(qi, _mm256_min_ps(n, one), m[i]);
                n = _mm256_max_ps(_mm256_sub_ps(n, one), zero);
            }
            if (square) n = _mm256_mul_ps(n, n);
            s[i] = _mm256_fmadd_ps(qi, n, s[i]);
        }
    }
    *sum_out = horizontal_sum8(_mm256_add_ps(_mm256_add_ps(s[0], s[1]), _mm256_add_ps(s[2], s[3])));
    *mask_out = horizontal_sum8(_mm256_add_ps(_mm256_add_ps(m[0], m[1]), _mm256_add_ps(m[2], m[3])));
}

CLS_AVX2 static void sketch_dot_block_avx2(const float *query, const uint8_t *sketches, size_t count, size_t dim,
                                           float *out) {
    size_t stride = CLS_SKETCH_HEADER_BYTES + dim / 2;
    float total = 0;
    for (size_t k = 0; k < dim; k++) total += query[k];
    for (size_t r = 0; r < count; r++) {
        const uint8_t *sketch = sketches + r * stride;
        sketch_header header = read_header(sketch);
        const uint8_t *codes = sketch + CLS_SKETCH_HEADER_BYTES;
        float sum, mask;
        // The mode's branches, each its own loop.
        switch (header.mode & 3) {
        case 0: sketch_sums(query, codes, dim, 0, 0, &sum, &mask); mask = total; break;
        case 1: sketch_sums(query, codes, dim, 1, 0, &sum, &mask); mask = total; break;
        case 2: sketch_sums(query, codes, dim, 0, 1, &sum, &mask); break;
        default: sketch_sums(query, codes, dim, 1, 1, &sum, &mask); break;
        }
        out[r] = header.offset * mask + header.step * sum;
    }
}
#endif

void cls_sketch_dot_block(const float *query, const uint8_t *sketches, size_t count, size_t dim, float *out) {
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) {
        sketch_dot_block_avx2(query, sketches, count, dim, out);
        return;
    }
#endif
    sketch_dot_block_scalar(query, sketches, count, dim, out);
}
