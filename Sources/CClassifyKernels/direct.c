#include "CClassifyKernels.h"
#include "direct.h"
#include "dispatch.h"
#include "parallel.h"
#include "vec.h"

// The helpers below take and return 8-float vectors and are always inlined into functions built
// for AVX2 or AVX-512 (dispatch.h), so no call ever crosses the vector ABI the compiler notes.
#pragma GCC diagnostic ignored "-Wpsabi"

// Direct convolution for layers with few input channels (the 3x3/2 stem on RGB, 3 -> 32), where
// im2col + GEMM would spend more time writing and re-reading the unfolded patches than computing.
// Weights are packed [kernel_h][kernel_w][in_channels][out_padded], out_padded = out rounded up to
// 8, zero-filled; for each tap and input channel the output channels are contiguous, so one input
// value is broadcast and multiplied into vectors of output channels, shared by a tile of output
// pixels. Besides the stem, this serves the face detector's small 3x3 and 2x2 convolutions
// (10 -> 16, 16 -> 32, 28 -> 48, ...), with their PReLU applied in the store. The AVX-512 variant
// (direct_avx512.c) reads the same packing.


size_t cls_direct_conv_packed_count(int kernel_h, int kernel_w, int in_channels, int out_channels) {
    return (size_t)kernel_h * kernel_w * in_channels * ((out_channels + 7) / 8 * 8);
}

void cls_direct_conv_pack_weights(const float *weights, int kernel_h, int kernel_w, int in_channels,
                                  int out_channels, float *packed) {
    const int padded = (out_channels + 7) / 8 * 8;
    for (int ky = 0; ky < kernel_h; ky++)
        for (int kx = 0; kx < kernel_w; kx++)
            for (int i = 0; i < in_channels; i++)
                for (int o = 0; o < padded; o++) {
                    float w = o < out_channels ? weights[(((size_t)o * in_channels + i) * kernel_h + ky) * kernel_w + kx] : 0.0f;
                    packed[(((size_t)ky * kernel_w + kx) * in_channels + i) * padded + o] = w;
                }
}

// Eight channels from c of a per-channel vector of `count` floats; zeros past the end.
CLS_INLINE v8 load_channels(const float *values, int c, int count) {
    if (c + 8 <= count) return V8_LOAD(values + c);
    float tail[8];
    for (int q = 0; q < 8; q++) tail[q] = c + q < count ? values[c + q] : 0.0f;
    return V8_LOAD(tail);
}

// PReLU (if slopes) then clamp, stored to the channels [c, c + 8) that exist.
CLS_INLINE void store_channels(const direct_job *j, float *out, int c, v8 v, v8 slope, v8 lo, v8 hi) {
    if (j->slopes) v = V8_SELECT(v < V8_SPLAT(0.0f), v, v * slope);
    v = V8_CLAMP(v, lo, hi);
    if (c + 8 <= j->out_channels) V8_STORE(out + c, v);
    else {
        float tail[8];
        V8_STORE(tail, v);
        for (int q = 0; c + q < j->out_channels; q++) out[c + q] = tail[q];
    }
}

// One pixel, channels [o, o + 8 * V) (those that exist), every tap checked.
CLS_INLINE void direct_pixel(const direct_job *j, const int V, int oy, int ox, int o) {
    const int Cin = j->in_channels, KW = j->kernel_w, OP = j->out_padded;
    v8 acc[4];
    for (int v = 0; v < V; v++) acc[v] = load_channels(j->bias, o + 8 * v, j->out_channels);
    const int iy0 = oy * j->stride_h - j->pad_top, ix0 = ox * j->stride_w - j->pad_left;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int kx_lo = ix0 < 0 ? -ix0 : 0, kx_hi = j->in_w - ix0 < KW ? j->in_w - ix0 : KW;
    for (int ky = ky_lo; ky < ky_hi; ky++)
        for (int kx = kx_lo; kx < kx_hi; kx++) {
            const float *in = j->input + ((size_t)(iy0 + ky) * j->in_w + (ix0 + kx)) * Cin;
            const float *w = j->weights + (size_t)(ky * KW + kx) * Cin * OP + o;
            for (int i = 0; i < Cin; i++, w += OP) {
                const v8 x = V8_SPLAT(in[i]);
                for (int v = 0; v < V; v++) acc[v] += x * V8_LOAD(w + 8 * v);
            }
        }
    const v8 lo = V8_SPLAT(j->lower), hi = V8_SPLAT(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * j->out_channels;
    for (int v = 0; v < V; v++) {
        const v8 slope = j->slopes ? load_channels(j->slopes, o + 8 * v, j->out_channels) : lo;
        store_channels(j, out, o + 8 * v, acc[v], slope, lo, hi);
    }
}

// P pixels from ox whose windows lie inside the input horizontally, V vectors of 8 channels from
// o: one window row is KW * CIN consecutive floats of the input and KW * CIN consecutive rows of
// the packed weights, so there are no per-tap checks. KW and CIN are constants for the stem (3x3
// on RGB), so the loop unrolls. At most 8 accumulators (P * V <= 8).
CLS_INLINE void direct_tile_interior(const direct_job *j, const int KW, const int CIN, const int P, const int V,
                                     int oy, int ox, int o) {
    const int OP = j->out_padded, RUN = KW * CIN, S = j->stride_w;
    v8 acc[4][4];
    for (int v = 0; v < V; v++) {
        const v8 b = load_channels(j->bias, o + 8 * v, j->out_channels);
        for (int p = 0; p < P; p++) acc[p][v] = b;
    }
    const int iy0 = oy * j->stride_h - j->pad_top;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int ix0 = ox * S - j->pad_left;
    for (int ky = ky_lo; ky < ky_hi; ky++) {
        const float *row = j->input + ((size_t)(iy0 + ky) * j->in_w + ix0) * CIN;
        const float *w = j->weights + (size_t)ky * RUN * OP + o;
        for (int q = 0; q < RUN; q++, w += OP) {
            v8 wv[4];
            for (int v = 0; v < V; v++) wv[v] = V8_LOAD(w + 8 * v);
            for (int p = 0; p < P; p++) {
                const v8 x = V8_SPLAT(row[(size_t)p * S * CIN + q]);
                for (int v = 0; v < V; v++) acc[p][v] += x * wv[v];
            }
        }
    }
    const v8 lo = V8_SPLAT(j->lower), hi = V8_SPLAT(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * j->out_channels;
    for (int v = 0; v < V; v++) {
        const v8 slope = j->slopes ? load_channels(j->slopes, o + 8 * v, j->out_channels) : lo;
        for (int p = 0; p < P; p++) store_channels(j, out + (size_t)p * j->out_channels, o + 8 * v, acc[p][v], slope, lo, hi);
    }
}


// Each output row one block of up to 32 channels at a time: 2 pixels x 4 vectors, or 4 pixels x
// 1-2 vectors for a narrower last block.
CLS_INLINE void direct_task_body(const direct_job *j, int task) {
    const int oy0 = j->out_h * task / j->tasks, oy1 = j->out_h * (task + 1) / j->tasks;
    int x_lo, x_hi;
    direct_interior_columns(j, &x_lo, &x_hi);
    for (int oy = oy0; oy < oy1; oy++) {
        for (int o = 0; o < j->out_channels; o += 32) {
            const int remaining = j->out_channels - o;
            const int V = remaining > 24 ? 4 : remaining > 16 ? 3 : remaining > 8 ? 2 : 1;
            for (int ox = 0; ox < x_lo; ox++) direct_pixel(j, V, oy, ox, o);
            switch (V) {
            case 4: DIRECT_INTERIOR_SPAN(direct_tile_interior, direct_pixel, 2, 4); break;
            case 3: DIRECT_INTERIOR_SPAN(direct_tile_interior, direct_pixel, 2, 3); break;
            case 2: DIRECT_INTERIOR_SPAN(direct_tile_interior, direct_pixel, 4, 2); break;
            default: DIRECT_INTERIOR_SPAN(direct_tile_interior, direct_pixel, 4, 1); break;
            }
            for (int ox = x_hi; ox < j->out_w; ox++) direct_pixel(j, V, oy, ox, o);
        }
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void direct_task_avx2(void *context, int task) { direct_task_body(context, task); }
#endif
static void direct_task_baseline(void *context, int task) { direct_task_body(context, task); }

void cls_direct_conv2d(const float *input, int in_h, int in_w, int in_channels, const float *packed,
                       const float *bias, int kernel_h, int kernel_w, int stride_h, int stride_w, int pad_top,
                       int pad_left, const float *slopes, float *output, int out_h, int out_w, int out_channels,
                       float lower, float upper) {
    direct_job j = {
        .input = input, .weights = packed, .bias = bias, .slopes = slopes, .output = output, .in_h = in_h, .in_w = in_w,
        .in_channels = in_channels, .kernel_h = kernel_h, .kernel_w = kernel_w, .stride_h = stride_h,
        .stride_w = stride_w, .pad_top = pad_top, .pad_left = pad_left, .out_h = out_h, .out_w = out_w,
        .out_channels = out_channels, .out_padded = (out_channels + 7) / 8 * 8, .lower = lower, .upper = upper,
        .tasks = 1,
    };
    int threads = cls_parallel_thread_count();
    if (threads > 1) j.tasks = out_h < threads ? out_h : threads;  // a band of rows per thread (parallel.h)
    cls_task_fn fn = direct_task_baseline;
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) fn = direct_task_avx2;
#endif
#if CLS_HAS_AVX512_VARIANT
    if (cls_use_avx512()) fn = cls_direct_task_avx512;
#endif
    cls_parallel_run(fn, &j, j.tasks);
}
