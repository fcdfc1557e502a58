#include "CClassifyKernels.h"
#include "dispatch.h"

// Bilinear resizing of an NHWC map, separable: a source row is first resized along x into one of
// two row buffers (each output pixel blends its two source columns), then each output row blends
// the buffers of its two source rows along y. The taps (source indices and the second one's
// weight) come precomputed per output row and column. Source rows are read in order, so the two
// buffers hold every row an output row needs and each is resized along x once.

// dst[x][c] = src[left][c] + (src[right][c] - src[left][c]) * fraction, for the out_w columns.
CLS_INLINE void resize_row_x(const float *restrict src, int channels, int out_w, const int *col_lower,
                             const int *col_upper, const float *col_fraction, float *restrict dst) {
    for (int x = 0; x < out_w; x++) {
        const float *l = src + (size_t)col_lower[x] * channels, *r = src + (size_t)col_upper[x] * channels;
        const float dx = col_fraction[x];
        float *d = dst + (size_t)x * channels;
        for (int c = 0; c < channels; c++) d[c] = l[c] + (r[c] - l[c]) * dx;
    }
}

CLS_INLINE void resize_bilinear_body(const float *input, int in_w, int channels, int out_h, int out_w,
                                     const int *row_lower, const int *row_upper, const float *row_fraction,
                                     const int *col_lower, const int *col_upper, const float *col_fraction,
                                     const float *residual, float lower, float upper, float *scratch, float *output) {
    const size_t in_row = (size_t)in_w * channels, out_row = (size_t)out_w * channels;
    float *buffers[2] = {scratch, scratch + out_row};
    int held[2] = {-1, -1};
    for (int y = 0; y < out_h; y++) {
        const int want[2] = {row_lower[y], row_upper[y]};
        const float *rows[2] = {0, 0};
        for (int w = 0; w < 2; w++) {
            for (int s = 0; s < 2; s++)
                if (held[s] == want[w]) rows[w] = buffers[s];
            if (rows[w]) continue;
            // Reuse the buffer this output row does not need.
            int slot = w == 0 ? (held[0] == want[1] ? 1 : 0) : (rows[0] == buffers[0] ? 1 : 0);
            resize_row_x(input + (size_t)want[w] * in_row, channels, out_w, col_lower, col_upper, col_fraction, buffers[slot]);
            held[slot] = want[w];
            rows[w] = buffers[slot];
        }
        const float *restrict top = rows[0], *restrict bottom = rows[1];
        const float dy = row_fraction[y];
        float *restrict out = output + (size_t)y * out_row;
        if (residual) {
            const float *restrict res = residual + (size_t)y * out_row;
            for (size_t i = 0; i < out_row; i++) {
                float v = top[i] + (bottom[i] - top[i]) * dy + res[i];
                v = v < lower ? lower : v;
                out[i] = v > upper ? upper : v;
            }
        } else {
            for (size_t i = 0; i < out_row; i++) out[i] = top[i] + (bottom[i] - top[i]) * dy;
        }
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void resize_bilinear_avx2(const float *input, int in_w, int channels, int out_h, int out_w,
                                          const int *row_lower, const int *row_upper, const float *row_fraction,
                                          const int *col_lower, const int *col_upper, const float *col_fraction,
                                          const float *residual, float lower, float upper, float *scratch, float *output) {
    resize_bilinear_body(input, in_w, channels, out_h, out_w, row_lower, row_upper, row_fraction, col_lower, col_upper,
                         col_fraction, residual, lower, upper, scratch, output);
}
#endif

size_t cls_resize_bilinear_scratch(int out_w, int channels) { return 2 * (size_t)out_w * (size_t)channels; }

void cls_resize_bilinear(const float *input, int in_w, int channels, int out_h, int out_w, const int *row_lower,
                         const int *row_upper, const float *row_fraction, const int *col_lower, const int *col_upper,
                         const float *col_fraction, const float *residual, float lower, float upper, float *scratch,
                         float *output) {
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) {
        resize_bilinear_avx2(input, in_w, channels, out_h, out_w, row_lower, row_upper, row_fraction, col_lower, col_upper,
                             col_fraction, residual, lower, upper, scratch, output);
        return;
    }
#endif
    resize_bilinear_body(input, in_w, channels, out_h, out_w, row_lower, row_upper, row_fraction, col_lower, col_upper,
                         col_fraction, residual, lower, upper, scratch, output);
}
