#include "CClassifyKernels.h"
#include "dispatch.h"
#include "vec.h"

// Max pooling over NHWC maps, 8 channels per vector with a scalar tail, compiled baseline and
// AVX2; the AVX-512 body (max_pool_avx512.c) masks its last vector instead. Windows are clipped at the bottom and
// right edges, which is what PyTorch's ceil mode asks of the last row and column.

CLS_INLINE void max_pool_body(const float *input, int in_h, int in_w, int channels, int kernel_h, int kernel_w,
                              int stride_h, int stride_w, float *output, int out_h, int out_w) {
    const int vectors = channels / 8 * 8;
    for (int oy = 0; oy < out_h; oy++) {
        const int y0 = oy * stride_h, y1 = y0 + kernel_h < in_h ? y0 + kernel_h : in_h;
        for (int ox = 0; ox < out_w; ox++) {
            const int x0 = ox * stride_w, x1 = x0 + kernel_w < in_w ? x0 + kernel_w : in_w;
            float *out = output + ((size_t)oy * out_w + ox) * channels;
            const float *first = input + ((size_t)y0 * in_w + x0) * channels;
            int c = 0;
            for (; c < vectors; c += 8) {
                v8 m = V8_LOAD(first + c);
                for (int y = y0; y < y1; y++)
                    for (int x = x0; x < x1; x++) m = V8_MAX(m, V8_LOAD(input + ((size_t)y * in_w + x) * channels + c));
                V8_STORE(out + c, m);
            }
            for (; c < channels; c++) {
                float m = first[c];
                for (int y = y0; y < y1; y++)
                    for (int x = x0; x < x1; x++) {
                        const float v = input[((size_t)y * in_w + x) * channels + c];
                        m = v > m ? v : m;
                    }
                out[c] = m;
            }
        }
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void max_pool_avx2(const float *input, int in_h, int in_w, int channels, int kernel_h, int kernel_w,
                                   int stride_h, int stride_w, float *output, int out_h, int out_w) {
    max_pool_body(input, in_h, in_w, channels, kernel_h, kernel_w, stride_h, stride_w, output, out_h, out_w);
}
#endif

void cls_max_pool_avx512(const float *input, int in_h, int in_w, int channels, int kernel_h, int kernel_w,
                         int stride_h, int stride_w, float *output, int out_h, int out_w);

void cls_max_pool(const float *input, int in_h, int in_w, int channels, int kernel_h, int kernel_w, int stride_h,
                  int stride_w, float *output, int out_h, int out_w) {
#if CLS_HAS_AVX512_VARIANT
    if (cls_use_avx512()) {
        cls_max_pool_avx512(input, in_h, in_w, channels, kernel_h, kernel_w, stride_h, stride_w, output, out_h, out_w);
        return;
    }
#endif
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) {
        max_pool_avx2(input, in_h, in_w, channels, kernel_h, kernel_w, stride_h, stride_w, output, out_h, out_w);
        return;
    }
#endif
    max_pool_body(input, in_h, in_w, channels, kernel_h, kernel_w, stride_h, stride_w, output, out_h, out_w);
}
