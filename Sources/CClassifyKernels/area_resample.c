#include "CClassifyKernels.h"
#include "dispatch.h"

// Area resampling of an 8-bit RGB region to normalized floats, without a summed-area table: for
// each output row, the source rows of its window are added into a row of per-column sums (32-bit,
// vectorized: bytes widened and added), then each output pixel adds its window's columns of that
// row. The sums are exact integers while a window holds at most 2^32 / 255 pixels (the Swift caller
// requires it: AreaResampling.windowsFit), the same a summed-area table gives, and the normalization is
// written as separate multiplies and subtractions (no fused multiply-add), so the floats equal the
// table path's (AreaResampling in Swift) bit for bit.
#pragma clang fp contract(off)

// Source window [lo, hi) of output index i when n source samples become m (PyTorch's adaptive
// average pooling: windows overlap when the sizes do not divide).
CLS_INLINE int area_window_lo(int i, int n, int m) { return (int)((int64_t)i * n / m); }
CLS_INLINE int area_window_hi(int i, int n, int m) { return (int)(((int64_t)(i + 1) * n + m - 1) / m); }

// The scratch, carved: per-column sums of the current output row, then each output column's
// source window and 1 / its width.
typedef struct {
    uint32_t *sums;
    int32_t *column_lo, *column_hi;
    float *column_inverse;
} area_scratch;

CLS_INLINE area_scratch area_scratch_carve(void *scratch, int w, int out_w) {
    area_scratch s;
    s.sums = scratch;
    s.column_lo = (int32_t *)(s.sums + (size_t)w * 3);
    s.column_hi = s.column_lo + out_w;
    s.column_inverse = (float *)(s.column_hi + out_w);
    return s;
}

size_t cls_area_resample_scratch_bytes(int w, int out_w) {
    return (size_t)w * 3 * sizeof(uint32_t) + (size_t)out_w * (2 * sizeof(int32_t) + sizeof(float));
}

CLS_INLINE void area_resample_body(const uint8_t *pixels, int image_width, int x0, int y0, int w, int h, int out_w,
                                   int out_h, const float *mean, const float *scale, float *output, size_t row_stride,
                                   void *scratch) {
    const area_scratch s = area_scratch_carve(scratch, w, out_w);
    for (int ox = 0; ox < out_w; ox++) {
        s.column_lo[ox] = area_window_lo(ox, w, out_w);
        s.column_hi[ox] = area_window_hi(ox, w, out_w);
        s.column_inverse[ox] = 1.0f / (float)(s.column_hi[ox] - s.column_lo[ox]);
    }
    const size_t row_bytes = (size_t)w * 3;
    uint32_t *restrict sums = s.sums;
    const float mean0 = mean[0], mean1 = mean[1], mean2 = mean[2];
    const float scale0 = scale[0], scale1 = scale[1], scale2 = scale[2];
    for (int oy = 0; oy < out_h; oy++) {
        const int ylo = area_window_lo(oy, h, out_h), yhi = area_window_hi(oy, h, out_h);
        for (size_t i = 0; i < row_bytes; i++) sums[i] = 0;
        for (int y = ylo; y < yhi; y++) {
            const uint8_t *restrict line = pixels + ((size_t)(y0 + y) * image_width + x0) * 3;
            for (size_t i = 0; i < row_bytes; i++) sums[i] += line[i];
        }
        const float inverse_rows = 1.0f / (float)(yhi - ylo);
        float *out = output + (size_t)oy * row_stride;
        for (int ox = 0; ox < out_w; ox++) {
            uint32_t r = 0, g = 0, b = 0;
            // Windows are a few columns: a plain loop beats the vectorizer's long-loop code.
#pragma clang loop vectorize(disable)
            for (int x = s.column_lo[ox]; x < s.column_hi[ox]; x++) {
                r += sums[x * 3];
                g += sums[x * 3 + 1];
                b += sums[x * 3 + 2];
            }
            const float inverse = inverse_rows * s.column_inverse[ox];
            float v;
            v = (float)r * inverse; v = v - mean0; out[0] = v * scale0;
            v = (float)g * inverse; v = v - mean1; out[1] = v * scale1;
            v = (float)b * inverse; v = v - mean2; out[2] = v * scale2;
            out += 3;
        }
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void area_resample_avx2(const uint8_t *pixels, int image_width, int x0, int y0, int w, int h, int out_w,
                                        int out_h, const float *mean, const float *scale, float *output,
                                        size_t row_stride, void *scratch) {
    area_resample_body(pixels, image_width, x0, y0, w, h, out_w, out_h, mean, scale, output, row_stride, scratch);
}
#endif

void cls_area_resample_rgb8(const uint8_t *pixels, int image_width, int x0, int y0, int w, int h, int out_w, int out_h,
                            const float *mean, const float *scale, float *output, size_t row_stride, void *scratch) {
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) {
        area_resample_avx2(pixels, image_width, x0, y0, w, h, out_w, out_h, mean, scale, output, row_stride, scratch);
        return;
    }
#endif
    area_resample_body(pixels, image_width, x0, y0, w, h, out_w, out_h, mean, scale, output, row_stride, scratch);
}
