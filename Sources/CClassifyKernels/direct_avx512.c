#include "direct.h"
#include "dispatch.h"

// The AVX-512 body of cls_direct_conv2d (packing as in direct.c: [kh][kw][in][out rounded up to
// 8]): tiles of 8 output pixels x 32 output channels, 16 zmm accumulators; per tap and input
// channel, 2 weight vectors are shared by 8 broadcast inputs. Where the 8 windows lie inside the
// input horizontally, one window row is KW * CIN consecutive floats of the input (and as many
// consecutive weight rows), so the tile runs with no checks, unrolled for the stem (3x3 on RGB).
// The row's last tile moves left to end at the last such pixel; the others go one at a time with
// every tap checked. Output channels past out_channels are
// masked on load and store.

#if CLS_HAS_AVX512_VARIANT
#include <immintrin.h>
#include <stddef.h>

enum { PIXELS = 8 };

CLS_INLINE __mmask16 channels_mask(int channels) {
    if (channels <= 0) return 0;
    return channels >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << channels) - 1u);
}

// PIXELS pixels from ox whose windows lie inside horizontally; channels [o, o + 32) masked.
CLS_AVX512 CLS_INLINE void tile_interior(const direct_job *j, const int KW, const int CIN, int oy, int ox, int o) {
    const int OP = j->out_padded, RUN = KW * CIN, S = j->stride_w;
    const __mmask16 m0 = channels_mask(j->out_channels - o), m1 = channels_mask(j->out_channels - o - 16);
    __m512 acc[PIXELS][2];
    const __m512 b0 = _mm512_maskz_loadu_ps(m0, j->bias + o), b1 = _mm512_maskz_loadu_ps(m1, j->bias + o + 16);
    for (int p = 0; p < PIXELS; p++) { acc[p][0] = b0; acc[p][1] = b1; }
    const int iy0 = oy * j->stride_h - j->pad_top;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int ix0 = ox * S - j->pad_left;
    for (int ky = ky_lo; ky < ky_hi; ky++) {
        const float *row = j->input + ((size_t)(iy0 + ky) * j->in_w + ix0) * CIN;
        const float *w = j->weights + (size_t)ky * RUN * OP + o;
        for (int q = 0; q < RUN; q++, w += OP) {
            const __m512 w0 = _mm512_maskz_loadu_ps(m0, w), w1 = _mm512_maskz_loadu_ps(m1, w + 16);
            for (int p = 0; p < PIXELS; p++) {
                const __m512 x = _mm512_set1_ps(row[(size_t)p * S * CIN + q]);
                acc[p][0] = _mm512_fmadd_ps(x, w0, acc[p][0]);
                acc[p][1] = _mm512_fmadd_ps(x, w1, acc[p][1]);
            }
        }
    }
    const __m512 lo = _mm512_set1_ps(j->lower), hi = _mm512_set1_ps(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * j->out_channels + o;
    for (int p = 0; p < PIXELS; p++) {
        _mm512_mask_storeu_ps(out + (size_t)p * j->out_channels, m0, _mm512_min_ps(_mm512_max_ps(acc[p][0], lo), hi));
        _mm512_mask_storeu_ps(out + (size_t)p * j->out_channels + 16, m1, _mm512_min_ps(_mm512_max_ps(acc[p][1], lo), hi));
    }
}

// One pixel, all output channels, every tap checked.
CLS_AVX512 static void pixel(const direct_job *j, int oy, int ox) {
    const int Cin = j->in_channels, KW = j->kernel_w, OP = j->out_padded;
    const int iy0 = oy * j->stride_h - j->pad_top, ix0 = ox * j->stride_w - j->pad_left;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int kx_lo = ix0 < 0 ? -ix0 : 0, kx_hi = j->in_w - ix0 < KW ? j->in_w - ix0 : KW;
    const __m512 lo = _mm512_set1_ps(j->lower), hi = _mm512_set1_ps(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * j->out_channels;
    for (int o = 0; o < j->out_channels; o += 16) {
        const __mmask16 mask = channels_mask(j->out_channels - o);
        __m512 acc = _mm512_maskz_loadu_ps(mask, j->bias + o);
        for (int ky = ky_lo; ky < ky_hi; ky++)
            for (int kx = kx_lo; kx < kx_hi; kx++) {
                const float *in = j->input + ((size_t)(iy0 + ky) * j->in_w + (ix0 + kx)) * Cin;
                const float *w = j->weights + (size_t)(ky * KW + kx) * Cin * OP + o;
                for (int i = 0; i < Cin; i++, w += OP)
                    acc = _mm512_fmadd_ps(_mm512_set1_ps(in[i]), _mm512_maskz_loadu_ps(mask, w), acc);
            }
        _mm512_mask_storeu_ps(out + o, mask, _mm512_min_ps(_mm512_max_ps(acc, lo), hi));
    }
}

CLS_AVX512 void cls_direct_task_avx512(void *context, int task) {
    const direct_job *j = context;
    const int oy0 = j->out_h * task / j->tasks, oy1 = j->out_h * (task + 1) / j->tasks;
    const int S = j->stride_w;
    // First and one-past-last output column whose window lies inside the input horizontally.
    int x_lo = (j->pad_left + S - 1) / S;
    int x_hi = j->in_w - j->kernel_w + j->pad_left >= 0 ? (j->in_w - j->kernel_w + j->pad_left) / S + 1 : 0;
    if (x_hi > j->out_w) x_hi = j->out_w;
    if (x_lo > x_hi) x_lo = x_hi;
    for (int oy = oy0; oy < oy1; oy++) {
        for (int ox = 0; ox < x_lo; ox++) pixel(j, oy, ox);
        // Interior tiles; the last one moves left to end at x_hi (recomputing a few pixels).
        if (x_hi - x_lo >= PIXELS) {
            for (int start = x_lo; start < x_hi; start += PIXELS) {
                const int ox = start + PIXELS <= x_hi ? start : x_hi - PIXELS;
                for (int o = 0; o < j->out_channels; o += 32) {
                    if (j->kernel_w == 3 && j->in_channels == 3) tile_interior(j, 3, 3, oy, ox, o);
                    else tile_interior(j, j->kernel_w, j->in_channels, oy, ox, o);
                }
            }
        } else {
            for (int ox = x_lo; ox < x_hi; ox++) pixel(j, oy, ox);
        }
        for (int ox = x_hi; ox < j->out_w; ox++) pixel(j, oy, ox);
    }
}
#endif
