#include "depthwise.h"
#include "dispatch.h"

// The AVX-512 body of cls_depthwise_conv2d (layout and split as in depthwise.c): 16 channels per
// zmm vector, tiles of 4 output pixels x 32 channels (8 accumulators). Channels past the last
// multiple of 16 are masked on load and store, so every channel goes through the tiles (no
// per-pixel scalar tail). 3x3 and 5x5 windows with stride 1 or 2 are compiled with the shape as
// constants; tiles touching the left or right border skip the taps outside the input by a bit mask
// worked out once per tile (the same for every window row and channel block); the last tile of a
// row moves left to end at the row's end. 5x5 windows sweep the map in channel groups small
// enough that the window rows stay in L1, as in depthwise.c, but of at least 32 channels
// (dw_channel_group with this file's figures). Maps narrower than 4 pixels and other
// shapes go pixel by pixel with every tap checked.

#if CLS_HAS_AVX512_VARIANT
#include <immintrin.h>
#include <stddef.h>


CLS_INLINE __mmask16 channels_mask(int channels) {
    return channels >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << channels) - 1u);
}

// Output pixel `pixel`'s channels c ..< c + 16 (those in `mask`): clamp(acc) as floats, or, for a
// job writing uint8 (j->q), the value cls_quantize_one gives for it: times the channel's
// multiplier, held to +-512 (NaN to -512: max returns its second operand then), rounded to
// nearest even (the default MXCSR mode, as nearbyintf), plus the zero point, held to 0...255.
CLS_AVX512 CLS_INLINE void store(const dw_job *j, size_t pixel, int c, __mmask16 mask, __m512 acc, __m512 lo, __m512 hi) {
    const __m512 y = _mm512_min_ps(_mm512_max_ps(acc, lo), hi);
    if (!j->q) {
        _mm512_mask_storeu_ps(j->output + pixel * (size_t)j->channels + c, mask, y);
        return;
    }
    __m512 f = _mm512_mul_ps(y, _mm512_maskz_loadu_ps(mask, j->q_multipliers + c));
    f = _mm512_min_ps(_mm512_max_ps(f, _mm512_set1_ps(-512.0f)), _mm512_set1_ps(512.0f));
    __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(f), _mm512_set1_epi32(j->q_zero_point));
    v = _mm512_min_epi32(_mm512_max_epi32(v, _mm512_setzero_si512()), _mm512_set1_epi32(255));
    _mm512_mask_cvtepi32_storeu_epi8(j->q + pixel * j->q_stride + c, mask, v);
}

// One output pixel, channels [c0, c1), any window shape, every tap checked.
CLS_AVX512 static void pixel(const dw_job *j, int oy, int ox, int c0, int c1) {
    const int C = j->channels, KW = j->kernel_w;
    const int iy0 = oy * j->stride_h - j->pad_top, ix0 = ox * j->stride_w - j->pad_left;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int kx_lo = ix0 < 0 ? -ix0 : 0, kx_hi = j->in_w - ix0 < KW ? j->in_w - ix0 : KW;
    const __m512 lo = _mm512_set1_ps(j->lower), hi = _mm512_set1_ps(j->upper);
    const size_t at = (size_t)oy * j->out_w + ox;
    for (int c = c0; c < c1; c += 16) {
        const __mmask16 mask = channels_mask(c1 - c);
        __m512 acc = _mm512_maskz_loadu_ps(mask, j->bias + c);
        for (int ky = ky_lo; ky < ky_hi; ky++)
            for (int kx = kx_lo; kx < kx_hi; kx++) {
                const float *in = j->input + ((size_t)(iy0 + ky) * j->in_w + (ix0 + kx)) * C + c;
                const float *w = j->weights + (size_t)(ky * KW + kx) * C + c;
                acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, in), _mm512_maskz_loadu_ps(mask, w), acc);
            }
        store(j, at, c, mask, acc, lo, hi);
    }
}

// 4 output pixels (ox...ox+3) x V vectors of channels from c, windows of KW <= 5 and stride S of 1
// or 2 (the shapes `rows` is compiled for); the last vector has `last` channels (1...16). With
// CHECKED, taps outside the input horizontally are skipped (bit t*KW+kx of `valid`); without, the
// caller guarantees every tap is inside.
CLS_AVX512 CLS_INLINE void tile(const dw_job *j, const int KW, const int S, const int V, const int CHECKED,
                                unsigned valid, int oy, int ox, int c, int last, int ky_lo, int ky_hi) {
    enum { T = 4 };
    const int C = j->channels;
    const int iy0 = oy * S - j->pad_top, ix0 = ox * S - j->pad_left;
    __mmask16 mask[2];
    for (int v = 0; v < V; v++) mask[v] = v == V - 1 ? channels_mask(last) : (__mmask16)0xFFFF;
    __m512 acc[T][2];
    for (int v = 0; v < V; v++) {
        const __m512 b = _mm512_maskz_loadu_ps(mask[v], j->bias + c + 16 * v);
        for (int t = 0; t < T; t++) acc[t][v] = b;
    }
    for (int ky = ky_lo; ky < ky_hi; ky++) {
        // An offset, not a pointer: left of the map (ix0 < 0) it would point before the input.
        // Only the taps inside become addresses.
        const ptrdiff_t in = ((ptrdiff_t)(iy0 + ky) * j->in_w + ix0) * C + c;
        const float *w = j->weights + (size_t)(ky * KW) * C + c;
        // The 4 pixels' windows overlap, so each input column under them (3 * S + KW) is loaded
        // once and multiplied into every pixel whose window holds it, with the window row's
        // weights in registers: 8 loads (stride 1) or 11 (stride 2) for a 5x5 row's 20
        // multiply-adds, where loading per tap took 20 inputs and 5 weights. Each accumulator
        // adds its taps in kx order, as that loop did, so the sums are the same to the bit. A tap
        // is outside the input exactly when its column is, so the check is per column (through
        // the first pixel whose window holds it). Both channel vectors go in one pass, keeping 8
        // accumulators in flight; the loops must unroll fully for the weights to stay in
        // registers (without the pragmas stride 2 ran at half the speed of loading per tap).
        __m512 wv[5][2];
        for (int kx = 0; kx < KW; kx++)
            for (int v = 0; v < V; v++) wv[kx][v] = _mm512_maskz_loadu_ps(mask[v], w + (size_t)kx * C + 16 * v);
#pragma clang loop unroll(full)
        for (int x = 0; x < S * (T - 1) + KW; x++) {
            const int first = x < KW ? 0 : (x - KW + S) / S;
            if (CHECKED && !(valid & (1u << (first * KW + x - S * first)))) continue;
#pragma clang loop unroll(full)
            for (int v = 0; v < V; v++) {
                const __m512 xv = _mm512_maskz_loadu_ps(mask[v], j->input + (in + (ptrdiff_t)x * C + 16 * v));
#pragma clang loop unroll(full)
                for (int t = 0; t < T; t++) {
                    const int kx = x - S * t;
                    if (kx >= 0 && kx < KW) acc[t][v] = _mm512_fmadd_ps(xv, wv[kx][v], acc[t][v]);
                }
            }
        }
    }
    const __m512 lo = _mm512_set1_ps(j->lower), hi = _mm512_set1_ps(j->upper);
    const size_t at = (size_t)oy * j->out_w + ox;
    for (int t = 0; t < T; t++)
        for (int v = 0; v < V; v++) store(j, at + (size_t)t, c + 16 * v, mask[v], acc[t][v], lo, hi);
}

// Channels [g0, g1) of one 4-pixel tile: 32 at a time, then the rest (1...32) masked.
CLS_AVX512 CLS_INLINE void tile_channels(const dw_job *j, const int KW, const int S, const int CHECKED,
                                         unsigned valid, int oy, int ox, int g0, int g1, int ky_lo, int ky_hi) {
    int c = g0;
    for (; c + 32 < g1; c += 32) tile(j, KW, S, 2, CHECKED, valid, oy, ox, c, 16, ky_lo, ky_hi);
    const int rest = g1 - c;
    if (rest > 16) tile(j, KW, S, 2, CHECKED, valid, oy, ox, c, rest - 16, ky_lo, ky_hi);
    else if (rest > 0) tile(j, KW, S, 1, CHECKED, valid, oy, ox, c, rest, ky_lo, ky_hi);
}

// This path's channel groups (dw_channel_group): for 5x5 windows, groups whose window rows and
// weights fit in L1 (KH rows x in_w pixels + KH x KW taps, per channel, within GROUP_BYTES), but
// never fewer than 32, so that every tile but a group's last runs two channel
// vectors, 8 accumulators (with 16, 28x28 maps got one-vector tiles, 4 accumulators, too few for the
// FMAs' latency). Against depthwise.c's rule (rows only, 16 KB, groups of 16), measured on the Xeon
// family 6 model 207 (int8 network, minimum of 300): 28x28x240 0.147 -> 0.106 ms, 56x56x144 /2 0.127 ->
// 0.108, 14x14x672 0.087 -> 0.078, the 7x7x1152 layers unchanged (docs/performance.md).
enum { GROUP_BYTES = 24 * 1024, MIN_GROUP = 32 };

CLS_AVX512 CLS_INLINE void rows(const dw_job *j, const int KW, const int S, int oy0, int oy1, int c0, int c1) {
    const int KH = j->kernel_h;
    if (j->out_w < 4) {
        for (int oy = oy0; oy < oy1; oy++)
            for (int ox = 0; ox < j->out_w; ox++) pixel(j, oy, ox, c0, c1);
        return;
    }
    const int group = dw_channel_group(j, c1 - c0, GROUP_BYTES, 1, MIN_GROUP);
    for (int g0 = c0; g0 < c1; g0 += group) {
        const int g1 = g0 + group < c1 ? g0 + group : c1;
        for (int oy = oy0; oy < oy1; oy++) {
            const int iy0 = oy * S - j->pad_top;
            const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < KH ? j->in_h - iy0 : KH;
            for (int start = 0; start < j->out_w; start += 4) {
                const int ox = start + 4 <= j->out_w ? start : j->out_w - 4;
                const int ix0 = ox * S - j->pad_left;
                unsigned valid = 0;
                for (int t = 0; t < 4; t++)
                    for (int kx = 0; kx < KW; kx++) {
                        const int ix = ix0 + t * S + kx;
                        if (ix >= 0 && ix < j->in_w) valid |= 1u << (t * KW + kx);
                    }
                if (valid == (1u << (4 * KW)) - 1u) tile_channels(j, KW, S, 0, valid, oy, ox, g0, g1, ky_lo, ky_hi);
                else tile_channels(j, KW, S, 1, valid, oy, ox, g0, g1, ky_lo, ky_hi);
            }
        }
    }
}

CLS_AVX512 void cls_depthwise_task_avx512(void *context, int task) {
    const dw_job *j = context;
    const int ri = task / j->channel_tasks, ci = task % j->channel_tasks;
    const int oy0 = j->out_h * ri / j->row_tasks, oy1 = j->out_h * (ri + 1) / j->row_tasks;
    const int blocks = (j->channels + 15) / 16;
    const int c0 = blocks * ci / j->channel_tasks * 16;
    int c1 = blocks * (ci + 1) / j->channel_tasks * 16;
    if (c1 > j->channels) c1 = j->channels;
    if (c0 >= c1) return;
    if (j->stride_h == j->stride_w && j->kernel_h == j->kernel_w) {
        switch (j->kernel_w * 10 + j->stride_w) {
        case 31: rows(j, 3, 1, oy0, oy1, c0, c1); return;
        case 32: rows(j, 3, 2, oy0, oy1, c0, c1); return;
        case 51: rows(j, 5, 1, oy0, oy1, c0, c1); return;
        case 52: rows(j, 5, 2, oy0, oy1, c0, c1); return;
        default: break;
        }
    }
    for (int oy = oy0; oy < oy1; oy++)
        for (int ox = 0; ox < j->out_w; ox++) pixel(j, oy, ox, c0, c1);
}
#endif
