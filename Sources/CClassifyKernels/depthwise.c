#include <string.h>

#include "CClassifyKernels.h"
#include "depthwise.h"
#include "dispatch.h"
#include "parallel.h"
#include "vec.h"

// Depthwise convolution, NHWC, vectorized over channels (8 per vector). Weights are packed
// [kernel_h][kernel_w][channels], so the weight vector of one tap is contiguous like the input.
//
// Output rows are cut into tiles of 4 pixels x 16 channels: 8 accumulators in registers. The
// common shapes (3x3 and 5x5, stride 1 and 2) are compiled with the kernel size and stride as
// constants, so the kx loop unrolls and, for stride 1, an input vector loaded for one pixel of
// the tile is reused for its neighbours. Tiles whose window stays inside the input horizontally
// take no checks. Rows of the window outside the input are skipped by bounding the ky loop.
// Channels past the last multiple of 8 (and maps narrower than 4) go pixel by pixel with every
// tap checked. Bias starts the accumulators; the clamp happens in the store. How borders and
// channel blocks are ordered differs for 3x3 and 5x5 windows (see dw_rows). The AVX-512 variant
// (depthwise_avx512.c) takes the same job and split.

// Channels [c, c + n) of one output pixel, n < 8, for dw_pixel.
CLS_INLINE void dw_pixel_narrow(const dw_job *j, int iy0, int ix0, int ky_lo, int ky_hi, int kx_lo, int kx_hi, int c,
                                const int n, float *out) {
    const int C = j->channels, KW = j->kernel_w;
    float acc[8];
    for (int k = 0; k < n; k++) acc[k] = j->bias[c + k];
    for (int ky = ky_lo; ky < ky_hi; ky++) {
        for (int kx = kx_lo; kx < kx_hi; kx++) {
            const float *in = j->input + ((size_t)(iy0 + ky) * j->in_w + (ix0 + kx)) * C + c;
            const float *w = j->weights + (size_t)(ky * KW + kx) * C + c;
            for (int k = 0; k < n; k++) acc[k] += in[k] * w[k];
        }
    }
    for (int k = 0; k < n; k++) {
        float a = acc[k] < j->lower ? j->lower : acc[k];
        out[c + k] = a > j->upper ? j->upper : a;
    }
}

// One output pixel, channels [c0, c1), every tap checked against the input bounds.
CLS_INLINE void dw_pixel(const dw_job *j, int oy, int ox, int c0, int c1) {
    const int C = j->channels, KW = j->kernel_w;
    const int iy0 = oy * j->stride_h - j->pad_top, ix0 = ox * j->stride_w - j->pad_left;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int kx_lo = ix0 < 0 ? -ix0 : 0, kx_hi = j->in_w - ix0 < KW ? j->in_w - ix0 : KW;
    const v8 lo = V8_SPLAT(j->lower), hi = V8_SPLAT(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * C;
    int c = c0;
    for (; c + 32 <= c1; c += 32) {
        v8 a0 = V8_LOAD(j->bias + c), a1 = V8_LOAD(j->bias + c + 8);
        v8 a2 = V8_LOAD(j->bias + c + 16), a3 = V8_LOAD(j->bias + c + 24);
        for (int ky = ky_lo; ky < ky_hi; ky++) {
            for (int kx = kx_lo; kx < kx_hi; kx++) {
                const float *in = j->input + ((size_t)(iy0 + ky) * j->in_w + (ix0 + kx)) * C + c;
                const float *w = j->weights + (size_t)(ky * KW + kx) * C + c;
                a0 += V8_LOAD(in) * V8_LOAD(w);
                a1 += V8_LOAD(in + 8) * V8_LOAD(w + 8);
                a2 += V8_LOAD(in + 16) * V8_LOAD(w + 16);
                a3 += V8_LOAD(in + 24) * V8_LOAD(w + 24);
            }
        }
        V8_STORE(out + c, V8_CLAMP(a0, lo, hi));
        V8_STORE(out + c + 8, V8_CLAMP(a1, lo, hi));
        V8_STORE(out + c + 16, V8_CLAMP(a2, lo, hi));
        V8_STORE(out + c + 24, V8_CLAMP(a3, lo, hi));
    }
    for (; c + 8 <= c1; c += 8) {
        v8 a0 = V8_LOAD(j->bias + c);
        for (int ky = ky_lo; ky < ky_hi; ky++) {
            for (int kx = kx_lo; kx < kx_hi; kx++) {
                const float *in = j->input + ((size_t)(iy0 + ky) * j->in_w + (ix0 + kx)) * C + c;
                a0 += V8_LOAD(in) * V8_LOAD(j->weights + (size_t)(ky * KW + kx) * C + c);
            }
        }
        V8_STORE(out + c, V8_CLAMP(a0, lo, hi));
    }
    // The last 1-7 channels (all of them in a map of fewer than 8, like BlazeFace's 4-channel
    // score head): taps outer, so each tap's addresses are worked out once for the channels;
    // four channels with the count a constant, so they become one 4-float vector.
    if (c1 - c == 4) dw_pixel_narrow(j, iy0, ix0, ky_lo, ky_hi, kx_lo, kx_hi, c, 4, out);
    else if (c < c1) dw_pixel_narrow(j, iy0, ix0, ky_lo, ky_hi, kx_lo, kx_hi, c, c1 - c, out);
}

// Interior tile: T output pixels (ox...ox+T-1) x V vectors of channels starting at c.
CLS_INLINE void dw_tile(const dw_job *j, const int KW, const int S, const int T, const int V, int oy, int ox, int c,
                        int ky_lo, int ky_hi) {
    const int C = j->channels;
    const int iy0 = oy * S - j->pad_top, ix0 = ox * S - j->pad_left;
    v8 acc[4][2];
    for (int t = 0; t < T; t++)
        for (int v = 0; v < V; v++) acc[t][v] = V8_LOAD(j->bias + c + 8 * v);
    for (int ky = ky_lo; ky < ky_hi; ky++) {
        const float *in = j->input + ((size_t)(iy0 + ky) * j->in_w + ix0) * C + c;
        const float *w = j->weights + (size_t)(ky * KW) * C + c;
        for (int kx = 0; kx < KW; kx++) {
            for (int v = 0; v < V; v++) {
                v8 wv = V8_LOAD(w + (size_t)kx * C + 8 * v);
                for (int t = 0; t < T; t++) acc[t][v] += V8_LOAD(in + (size_t)(t * S + kx) * C + 8 * v) * wv;
            }
        }
    }
    const v8 lo = V8_SPLAT(j->lower), hi = V8_SPLAT(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * C + c;
    for (int t = 0; t < T; t++)
        for (int v = 0; v < V; v++) V8_STORE(out + (size_t)t * C + 8 * v, V8_CLAMP(acc[t][v], lo, hi));
}

// Like dw_tile but for tiles touching the left or right border, so small maps (7x7, 14x14, where
// most pixels are near a border) still get 4-pixel tiles with independent accumulators. Which
// (pixel, kx) taps fall inside the input depends only on the column, so it is worked out once per
// tile as a bit mask; the per-tap test is then a well-predicted branch, the same for every row
// of the window and every channel block.
CLS_INLINE void dw_tile_checked(const dw_job *j, const int KW, const int S, const int V, int oy, int ox, int c,
                                int ky_lo, int ky_hi) {
    const int C = j->channels, T = 4;
    const int iy0 = oy * S - j->pad_top, ix0 = ox * S - j->pad_left;
    unsigned valid = 0;
    for (int t = 0; t < T; t++)
        for (int kx = 0; kx < KW; kx++) {
            int ix = ix0 + t * S + kx;
            if (ix >= 0 && ix < j->in_w) valid |= 1u << (t * KW + kx);
        }
    v8 acc[4][2];
    for (int t = 0; t < T; t++)
        for (int v = 0; v < V; v++) acc[t][v] = V8_LOAD(j->bias + c + 8 * v);
    for (int ky = ky_lo; ky < ky_hi; ky++) {
        // An offset, not a pointer: left of the map (ix0 < 0) it would point before the input.
        // Only the taps inside become addresses.
        const ptrdiff_t in = ((ptrdiff_t)(iy0 + ky) * j->in_w + ix0) * C + c;
        const float *w = j->weights + (size_t)(ky * KW) * C + c;
#pragma clang loop unroll(full)
        for (int kx = 0; kx < KW; kx++) {
            for (int v = 0; v < V; v++) {
                v8 wv = V8_LOAD(w + (size_t)kx * C + 8 * v);
                for (int t = 0; t < T; t++)
                    if (valid & (1u << (t * KW + kx)))
                        acc[t][v] += V8_LOAD(j->input + (in + (ptrdiff_t)(t * S + kx) * C + 8 * v)) * wv;
            }
        }
    }
    const v8 lo = V8_SPLAT(j->lower), hi = V8_SPLAT(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * C + c;
    for (int t = 0; t < T; t++)
        for (int v = 0; v < V; v++) V8_STORE(out + (size_t)t * C + 8 * v, V8_CLAMP(acc[t][v], lo, hi));
}

CLS_INLINE void dw_rows(const dw_job *j, const int KW, const int S, int oy0, int oy1, int c0, int c1) {
    const int KH = j->kernel_h;
    // Interior columns: ox*S - pad_left >= 0 and ox*S - pad_left + KW - 1 < in_w.
    int x_lo = (j->pad_left + S - 1) / S;
    int x_hi = j->in_w - KW + j->pad_left >= 0 ? (j->in_w - KW + j->pad_left) / S + 1 : 0;
    if (x_lo > j->out_w) x_lo = j->out_w;
    if (x_hi > j->out_w) x_hi = j->out_w;
    if (x_hi < x_lo) x_hi = x_lo;
    // Channels handled by the tiles: whole vectors only; the rest goes through dw_pixel.
    const int c_vec_end = c0 + (c1 - c0) / 8 * 8;
    if (j->out_w < 4) {
        for (int oy = oy0; oy < oy1; oy++)
            for (int ox = 0; ox < j->out_w; ox++) dw_pixel(j, oy, ox, c0, c1);
        return;
    }
    // 5x5 windows: channels go in groups small enough that the input rows under the window, for
    // the group's channels, stay in L1 while the group sweeps the map (KH rows x in_w pixels x
    // group floats within DW_GROUP_BYTES); with all channels at once, the 14x14 and 7x7 maps with
    // 480-1152 channels would stream the window rows and all 25 weight vectors per channel from
    // L2 for every tile. Border tiles skip the taps outside (dw_tile_checked), and the last tile of
    // a row moves left to end at the row's end, recomputing a few pixels instead of running
    // 1-pixel tiles. 3x3 windows reuse less, so they sweep all channels per tile (contiguous,
    // prefetcher-friendly), with 1-pixel tiles for the rest of the interior and dw_pixel for the
    // one border column on each side; measured faster for them.
    const int group = dw_channel_group(j, c_vec_end - c0, DW_GROUP_BYTES, 0, 16);
    for (int g0 = c0; g0 < c_vec_end; g0 += group) {
        const int g1 = g0 + group < c_vec_end ? g0 + group : c_vec_end;
        for (int oy = oy0; oy < oy1; oy++) {
            const int iy0 = oy * S - j->pad_top;
            const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < KH ? j->in_h - iy0 : KH;
            if (KW >= 5) {
                for (int start = 0; start < j->out_w; start += 4) {
                    const int ox = start + 4 <= j->out_w ? start : j->out_w - 4;
                    const int interior = ox >= x_lo && ox + 4 <= x_hi;
                    int c = g0;
                    if (interior) {
                        for (; c + 16 <= g1; c += 16) dw_tile(j, KW, S, 4, 2, oy, ox, c, ky_lo, ky_hi);
                        for (; c + 8 <= g1; c += 8) dw_tile(j, KW, S, 4, 1, oy, ox, c, ky_lo, ky_hi);
                    } else {
                        for (; c + 16 <= g1; c += 16) dw_tile_checked(j, KW, S, 2, oy, ox, c, ky_lo, ky_hi);
                        for (; c + 8 <= g1; c += 8) dw_tile_checked(j, KW, S, 1, oy, ox, c, ky_lo, ky_hi);
                    }
                }
            } else {
                for (int ox = 0; ox < x_lo; ox++) dw_pixel(j, oy, ox, g0, g1);
                for (int ox = x_hi; ox < j->out_w; ox++) dw_pixel(j, oy, ox, g0, g1);
                int ox = x_lo;
                for (; ox + 4 <= x_hi; ox += 4) {
                    int c = g0;
                    for (; c + 16 <= g1; c += 16) dw_tile(j, KW, S, 4, 2, oy, ox, c, ky_lo, ky_hi);
                    for (; c + 8 <= g1; c += 8) dw_tile(j, KW, S, 4, 1, oy, ox, c, ky_lo, ky_hi);
                }
                for (; ox < x_hi; ox++) {
                    int c = g0;
                    for (; c + 16 <= g1; c += 16) dw_tile(j, KW, S, 1, 2, oy, ox, c, ky_lo, ky_hi);
                    for (; c + 8 <= g1; c += 8) dw_tile(j, KW, S, 1, 1, oy, ox, c, ky_lo, ky_hi);
                }
            }
        }
    }
    if (c_vec_end < c1)
        for (int oy = oy0; oy < oy1; oy++)
            for (int ox = 0; ox < j->out_w; ox++) dw_pixel(j, oy, ox, c_vec_end, c1);
}

CLS_INLINE void dw_task_body(const dw_job *j, int task) {
    int ri = task / j->channel_tasks, ci = task % j->channel_tasks;
    int oy0 = j->out_h * ri / j->row_tasks, oy1 = j->out_h * (ri + 1) / j->row_tasks;
    // Channel ranges are cut on multiples of 16 so every range keeps whole tiles.
    int blocks = (j->channels + 15) / 16;
    int c0 = blocks * ci / j->channel_tasks * 16, c1 = blocks * (ci + 1) / j->channel_tasks * 16;
    if (c1 > j->channels) c1 = j->channels;
    if (c0 >= c1) return;
    if (j->stride_h == j->stride_w && j->kernel_h == j->kernel_w) {
        switch (j->kernel_w * 10 + j->stride_w) {
        case 31: dw_rows(j, 3, 1, oy0, oy1, c0, c1); return;
        case 32: dw_rows(j, 3, 2, oy0, oy1, c0, c1); return;
        case 51: dw_rows(j, 5, 1, oy0, oy1, c0, c1); return;
        case 52: dw_rows(j, 5, 2, oy0, oy1, c0, c1); return;
        default: break;
        }
    }
    // Any other shape: every pixel through the checked path.
    for (int oy = oy0; oy < oy1; oy++)
        for (int ox = 0; ox < j->out_w; ox++) dw_pixel(j, oy, ox, c0, c1);
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void dw_task_avx2(void *context, int task) { dw_task_body(context, task); }
#endif
static void dw_task_baseline(void *context, int task) { dw_task_body(context, task); }

// Splits `j` between the threads and runs it on the best body this CPU has; a job writing uint8
// (j->q set) runs only on the AVX-512 body, and elsewhere this returns 0 without running it.
static int dw_run(dw_job *j) {
    int threads = cls_parallel_thread_count();
    if (threads > 1) {
        // A band of rows per thread (see parallel.h) while each band has two rows or more; maps
        // shorter than that (7x7 on two threads stays in rows) split by channels.
        int want = threads;
        if (j->out_h >= 2 * want) j->row_tasks = want;
        else {
            int blocks = (j->channels + 15) / 16;
            j->channel_tasks = want < blocks ? want : blocks;
        }
    }
    cls_task_fn fn = dw_task_baseline;
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) fn = dw_task_avx2;
#endif
#if CLS_HAS_AVX512_VARIANT
    if (cls_use_avx512()) fn = cls_depthwise_task_avx512;
    if (j->q && fn != cls_depthwise_task_avx512) return 0;
#else
    if (j->q) return 0;
#endif
    cls_parallel_run(fn, j, j->row_tasks * j->channel_tasks);
    return 1;
}

// The job of one call writing floats to `output`, not yet split between threads.
static dw_job dw_job_of(const float *input, int in_h, int in_w, int channels, const float *weights, const float *bias,
                        int kernel_h, int kernel_w, int stride_h, int stride_w, int pad_top, int pad_left,
                        float *output, int out_h, int out_w, float lower, float upper) {
    return (dw_job){
        .input = input, .weights = weights, .bias = bias, .output = output, .in_h = in_h, .in_w = in_w,
        .channels = channels, .kernel_h = kernel_h, .kernel_w = kernel_w, .stride_h = stride_h,
        .stride_w = stride_w, .pad_top = pad_top, .pad_left = pad_left, .out_h = out_h, .out_w = out_w,
        .lower = lower, .upper = upper, .row_tasks = 1, .channel_tasks = 1,
    };
}

void cls_depthwise_conv2d(const float *input, int in_h, int in_w, int channels, const float *weights,
                          const float *bias, int kernel_h, int kernel_w, int stride_h, int stride_w, int pad_top,
                          int pad_left, float *output, int out_h, int out_w, float lower, float upper) {
    dw_job j = dw_job_of(input, in_h, in_w, channels, weights, bias, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left,
                         output, out_h, out_w, lower, upper);
    (void)dw_run(&j);
}

void cls_depthwise_conv2d_u8(const float *input, int in_h, int in_w, int channels, const float *weights,
                             const float *bias, int kernel_h, int kernel_w, int stride_h, int stride_w, int pad_top,
                             int pad_left, int out_h, int out_w, float lower, float upper, const float *multipliers,
                             int zero_point, uint8_t *q, size_t q_stride, float *scratch) {
    dw_job j = dw_job_of(input, in_h, in_w, channels, weights, bias, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left,
                         scratch, out_h, out_w, lower, upper);
    j.q = q;
    j.q_multipliers = multipliers;
    j.q_zero_point = zero_point;
    j.q_stride = q_stride;
    const size_t pixels = (size_t)out_h * (size_t)out_w;
    if (!dw_run(&j)) {
        // The floats first, then the same quantization as the int8 convolution's own.
        cls_depthwise_conv2d(input, in_h, in_w, channels, weights, bias, kernel_h, kernel_w, stride_h, stride_w, pad_top,
                             pad_left, scratch, out_h, out_w, lower, upper);
        cls_quantize_u8(scratch, pixels, (size_t)channels, (size_t)channels, multipliers, zero_point, q, q_stride);
    }
    // The row's bytes past the channels meet zero weights; zeros rather than whatever was there.
    if (q_stride > (size_t)channels)
        for (size_t p = 0; p < pixels; p++) memset(q + p * q_stride + channels, 0, q_stride - (size_t)channels);
}
