#include "dispatch.h"

// The AVX-512 body of cls_max_pool: 16 channels per vector, the last vector masked, so a map of
// 10 channels (P-Net's first pooling) is one masked vector per window element, not 8 + 2 scalars.

#if CLS_HAS_AVX512_VARIANT
#include <immintrin.h>
#include <stddef.h>

CLS_AVX512 void cls_max_pool_avx512(const float *input, int in_h, int in_w, int channels, int kernel_h, int kernel_w,
                                    int stride_h, int stride_w, float *output, int out_h, int out_w) {
    for (int oy = 0; oy < out_h; oy++) {
        const int y0 = oy * stride_h, y1 = y0 + kernel_h < in_h ? y0 + kernel_h : in_h;
        for (int ox = 0; ox < out_w; ox++) {
            const int x0 = ox * stride_w, x1 = x0 + kernel_w < in_w ? x0 + kernel_w : in_w;
            float *out = output + ((size_t)oy * out_w + ox) * channels;
            for (int c = 0; c < channels; c += 16) {
                const __mmask16 mask = channels - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (channels - c)) - 1u);
                __m512 m = _mm512_maskz_loadu_ps(mask, input + ((size_t)y0 * in_w + x0) * channels + c);
                for (int y = y0; y < y1; y++)
                    for (int x = x0; x < x1; x++)
                        m = _mm512_max_ps(m, _mm512_maskz_loadu_ps(mask, input + ((size_t)y * in_w + x) * channels + c));
                _mm512_mask_storeu_ps(out + c, mask, m);
            }
        }
    }
}
#endif
