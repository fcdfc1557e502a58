#include "CClassifyKernels.h"
#include "dispatch.h"

// For every output pixel the accumulator row (all channels, contiguous in NHWC) lives in the
// output itself: start from the bias, add each valid tap's input row times its weight row, then
// clamp. The channel loop is unit-stride on input, weights and output, so it vectorizes.
CLS_INLINE void depthwise_body(const float *restrict input, int in_h, int in_w, int channels,
                               const float *restrict weights, const float *restrict bias, int kernel_h, int kernel_w,
                               int stride_h, int stride_w, int pad_top, int pad_left,
                               float *restrict output, int out_h, int out_w, float lower, float upper) {
    for (int oy = 0; oy < out_h; oy++) {
        for (int ox = 0; ox < out_w; ox++) {
            float *restrict acc = output + ((size_t)oy * out_w + ox) * channels;
            for (int c = 0; c < channels; c++) acc[c] = bias ? bias[c] : 0.0f;
            for (int ky = 0; ky < kernel_h; ky++) {
                int iy = oy * stride_h + ky - pad_top;
                if (iy < 0 || iy >= in_h) continue;
                for (int kx = 0; kx < kernel_w; kx++) {
                    int ix = ox * stride_w + kx - pad_left;
                    if (ix < 0 || ix >= in_w) continue;
                    const float *restrict in = input + ((size_t)iy * in_w + ix) * channels;
                    const float *restrict w = weights + ((size_t)ky * kernel_w + kx) * channels;
                    for (int c = 0; c < channels; c++) acc[c] += in[c] * w[c];
                }
            }
            for (int c = 0; c < channels; c++) {
                float v = acc[c];
                v = v < lower ? lower : v;
                acc[c] = v > upper ? upper : v;
            }
        }
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void depthwise_avx2(const float *input, int in_h, int in_w, int channels, const float *weights,
                                    const float *bias, int kernel_h, int kernel_w, int stride_h, int stride_w,
                                    int pad_top, int pad_left, float *output, int out_h, int out_w, float lower,
                                    float upper) {
    depthwise_body(input, in_h, in_w, channels, weights, bias, kernel_h, kernel_w, stride_h, stride_w, pad_top,
                   pad_left, output, out_h, out_w, lower, upper);
}
#endif

void cls_depthwise_conv2d(const float *input, int in_h, int in_w, int channels, const float *weights,
                          const float *bias, int kernel_h, int kernel_w, int stride_h, int stride_w, int pad_top,
                          int pad_left, float *output, int out_h, int out_w, float lower, float upper) {
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) {
        depthwise_avx2(input, in_h, in_w, channels, weights, bias, kernel_h, kernel_w, stride_h, stride_w, pad_top,
                       pad_left, output, out_h, out_w, lower, upper);
        return;
    }
#endif
    depthwise_body(input, in_h, in_w, channels, weights, bias, kernel_h, kernel_w, stride_h, stride_w, pad_top,
                   pad_left, output, out_h, out_w, lower, upper);
}
