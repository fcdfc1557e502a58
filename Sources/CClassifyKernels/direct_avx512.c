#include "direct.h"
#include "dispatch.h"

// The AVX-512 body of cls_direct_conv2d (packing as in direct.c: [kh][kw][in][out rounded up to
// 8]). Each output row is done one block of output channels at a time: 32 channels in tiles of
// 8 pixels (two weight vectors shared by 8 broadcast inputs), or, for a last block of 16 channels
// or fewer, tiles of 16 pixels (one weight vector shared by 16 broadcasts): 16 zmm accumulators
// either way. Where a tile's windows lie inside the input horizontally, one window row is
// KW * CIN consecutive floats of the input (and as many consecutive weight rows), so the tile runs
// with no checks; the stem (3x3 on RGB) gets constant loop bounds. The row's rest after whole
// tiles is one narrower tile; edge pixels (padding) go one at a time with every tap checked. Channels
// past out_channels are masked on load and store; PReLU slopes, if any, apply before the clamp.

#if CLS_HAS_AVX512_VARIANT
#include <immintrin.h>
#include <stddef.h>

CLS_INLINE __mmask16 channels_mask(int channels) {
    if (channels <= 0) return 0;
    return channels >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << channels) - 1u);
}

// PReLU (if slopes) then clamp.
CLS_AVX512 CLS_INLINE __m512 finish(const direct_job *j, __m512 v, __m512 slope, __m512 lo, __m512 hi) {
    if (j->slopes) v = _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ), v, slope);
    return _mm512_min_ps(_mm512_max_ps(v, lo), hi);
}

// PX pixels from ox whose windows lie inside horizontally, V vectors of channels from o (masked).
CLS_AVX512 CLS_INLINE void tile_interior(const direct_job *j, const int KW, const int CIN, const int PX, const int V,
                                         int oy, int ox, int o) {
    const int OP = j->out_padded, RUN = KW * CIN, S = j->stride_w;
    __mmask16 mask[2];
    __m512 acc[16][2], bias[2];
    for (int v = 0; v < V; v++) {
        mask[v] = channels_mask(j->out_channels - o - 16 * v);
        bias[v] = _mm512_maskz_loadu_ps(mask[v], j->bias + o + 16 * v);
    }
    for (int p = 0; p < PX; p++)
        for (int v = 0; v < V; v++) acc[p][v] = bias[v];
    const int iy0 = oy * j->stride_h - j->pad_top;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int ix0 = ox * S - j->pad_left;
    for (int ky = ky_lo; ky < ky_hi; ky++) {
        const float *row = j->input + ((size_t)(iy0 + ky) * j->in_w + ix0) * CIN;
        const float *w = j->weights + (size_t)ky * RUN * OP + o;
        for (int q = 0; q < RUN; q++, w += OP) {
            __m512 wv[2];
            for (int v = 0; v < V; v++) wv[v] = _mm512_maskz_loadu_ps(mask[v], w + 16 * v);
            for (int p = 0; p < PX; p++) {
                const __m512 x = _mm512_set1_ps(row[(size_t)p * S * CIN + q]);
                for (int v = 0; v < V; v++) acc[p][v] = _mm512_fmadd_ps(x, wv[v], acc[p][v]);
            }
        }
    }
    const __m512 lo = _mm512_set1_ps(j->lower), hi = _mm512_set1_ps(j->upper);
    __m512 slope[2];
    for (int v = 0; v < V; v++) slope[v] = j->slopes ? _mm512_maskz_loadu_ps(mask[v], j->slopes + o + 16 * v) : lo;
    float *out = j->output + ((size_t)oy * j->out_w + ox) * j->out_channels + o;
    for (int p = 0; p < PX; p++)
        for (int v = 0; v < V; v++)
            _mm512_mask_storeu_ps(out + (size_t)p * j->out_channels + 16 * v, mask[v], finish(j, acc[p][v], slope[v], lo, hi));
}

// One pixel, channels [o, o + 16 * V), every tap checked.
CLS_AVX512 static void pixel(const direct_job *j, int V, int oy, int ox, int o) {
    const int Cin = j->in_channels, KW = j->kernel_w, OP = j->out_padded;
    const int iy0 = oy * j->stride_h - j->pad_top, ix0 = ox * j->stride_w - j->pad_left;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int kx_lo = ix0 < 0 ? -ix0 : 0, kx_hi = j->in_w - ix0 < KW ? j->in_w - ix0 : KW;
    const __m512 lo = _mm512_set1_ps(j->lower), hi = _mm512_set1_ps(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * j->out_channels;
    for (int c = o; c < o + 16 * V; c += 16) {
        const __mmask16 mask = channels_mask(j->out_channels - c);
        if (!mask) break;
        __m512 acc = _mm512_maskz_loadu_ps(mask, j->bias + c);
        for (int ky = ky_lo; ky < ky_hi; ky++)
            for (int kx = kx_lo; kx < kx_hi; kx++) {
                const float *in = j->input + ((size_t)(iy0 + ky) * j->in_w + (ix0 + kx)) * Cin;
                const float *w = j->weights + (size_t)(ky * KW + kx) * Cin * OP + c;
                for (int i = 0; i < Cin; i++, w += OP)
                    acc = _mm512_fmadd_ps(_mm512_set1_ps(in[i]), _mm512_maskz_loadu_ps(mask, w), acc);
            }
        const __m512 slope = j->slopes ? _mm512_maskz_loadu_ps(mask, j->slopes + c) : lo;
        _mm512_mask_storeu_ps(out + c, mask, finish(j, acc, slope, lo, hi));
    }
}

// The rest of a row after its whole tiles, or a row narrower than one tile (the small maps of
// R-Net and O-Net, the last pyramid levels): one tile exactly as wide, so its pixels still share
// the weight loads and keep several accumulators in flight.
#define NARROW_CASE(P) case P: if (V == 2) tile_interior(j, KW, CIN, (P) < 8 ? (P) : 7, 2, oy, ox, o); else tile_interior(j, KW, CIN, P, 1, oy, ox, o); return
CLS_AVX512 static void narrow_span(const direct_job *j, int V, int oy, int ox, int width, int o) {
    const int KW = j->kernel_w, CIN = j->in_channels;
    switch (width) {
    NARROW_CASE(1); NARROW_CASE(2); NARROW_CASE(3); NARROW_CASE(4); NARROW_CASE(5);
    NARROW_CASE(6); NARROW_CASE(7); NARROW_CASE(8); NARROW_CASE(9); NARROW_CASE(10);
    NARROW_CASE(11); NARROW_CASE(12); NARROW_CASE(13); NARROW_CASE(14); NARROW_CASE(15);
    default: return;
    }
}
#undef NARROW_CASE

CLS_AVX512 void cls_direct_task_avx512(void *context, int task) {
    const direct_job *j = context;
    const int oy0 = j->out_h * task / j->tasks, oy1 = j->out_h * (task + 1) / j->tasks;
    int x_lo, x_hi;
    direct_interior_columns(j, &x_lo, &x_hi);
    for (int oy = oy0; oy < oy1; oy++) {
        for (int o = 0; o < j->out_channels; o += 32) {
            const int V = j->out_channels - o > 16 ? 2 : 1;
            for (int ox = 0; ox < x_lo; ox++) pixel(j, V, oy, ox, o);
            // Whole tiles, then one narrower tile for the rest (not a shifted whole tile: on the
            // detector's 9-to-21-pixel rows that would compute up to half the pixels twice).
            int ox = x_lo;
            if (V == 2)
                for (; ox + 8 <= x_hi; ox += 8) {
                    if (j->kernel_w == 3 && j->in_channels == 3) tile_interior(j, 3, 3, 8, 2, oy, ox, o);
                    else tile_interior(j, j->kernel_w, j->in_channels, 8, 2, oy, ox, o);
                }
            else
                for (; ox + 16 <= x_hi; ox += 16) tile_interior(j, j->kernel_w, j->in_channels, 16, 1, oy, ox, o);
            if (ox < x_hi) narrow_span(j, V, oy, ox, x_hi - ox, o);
            for (int ox = x_hi; ox < j->out_w; ox++) pixel(j, V, oy, ox, o);
        }
    }
}
#endif
