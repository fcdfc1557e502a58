#include "CClassifyKernels.h"
#include "dispatch.h"

CLS_INLINE void bias_activation_body(float *restrict data, size_t rows, size_t channels, const float *restrict bias,
                                     float lower, float upper) {
    for (size_t r = 0; r < rows; r++) {
        float *restrict row = data + r * channels;
        for (size_t c = 0; c < channels; c++) {
            float v = row[c] + (bias ? bias[c] : 0.0f);
            v = v < lower ? lower : v;
            row[c] = v > upper ? upper : v;
        }
    }
}

CLS_INLINE void add_activation_body(const float *a, const float *b, float *out, size_t count, float lower,
                                    float upper) {
    for (size_t i = 0; i < count; i++) {
        float v = a[i] + b[i];
        v = v < lower ? lower : v;
        out[i] = v > upper ? upper : v;
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void bias_activation_avx2(float *data, size_t rows, size_t channels, const float *bias, float lower,
                                          float upper) {
    bias_activation_body(data, rows, channels, bias, lower, upper);
}
CLS_AVX2 static void add_activation_avx2(const float *a, const float *b, float *out, size_t count, float lower,
                                         float upper) {
    add_activation_body(a, b, out, count, lower, upper);
}
#endif

void cls_bias_activation(float *data, size_t rows, size_t channels, const float *bias, float lower, float upper) {
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) { bias_activation_avx2(data, rows, channels, bias, lower, upper); return; }
#endif
    bias_activation_body(data, rows, channels, bias, lower, upper);
}

void cls_add_activation(const float *a, const float *b, float *out, size_t count, float lower, float upper) {
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) { add_activation_avx2(a, b, out, count, lower, upper); return; }
#endif
    add_activation_body(a, b, out, count, lower, upper);
}
