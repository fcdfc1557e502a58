#include "CClassifyKernels.h"
#include "direct.h"
#include "dispatch.h"
#include "parallel.h"
#include "vec.h"

// Direct convolution for layers with few input channels (the 3x3/2 stem on RGB, 3 -> 32), where
// im2col + GEMM would spend more time writing and re-reading the unfolded patches than computing.
// Weights are packed [kernel_h][kernel_w][in_channels][out_padded], out_padded = out rounded up to
// 8, zero-filled; for each tap and input channel the output channels are contiguous, so one input
// value is broadcast and multiplied into vectors of output channels. A tile of 2 output pixels x
// 32 output channels keeps 8 accumulators in registers (4 weight vectors shared by both pixels).
// The AVX-512 variant (direct_avx512.c) reads the same packing.


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

// P pixels (1 or 2, at ox and ox+1) x V vectors of output channels starting at o.
CLS_INLINE void direct_tile(const direct_job *j, const int P, const int V, int oy, int ox, int o) {
    const int Cin = j->in_channels, KW = j->kernel_w, OP = j->out_padded;
    v8 acc[2][4];
    for (int v = 0; v < V; v++) {
        v8 b;
        if (o + 8 * v + 8 <= j->out_channels) b = V8_LOAD(j->bias + o + 8 * v);
        else {
            float tail[8];
            for (int q = 0; q < 8; q++) tail[q] = o + 8 * v + q < j->out_channels ? j->bias[o + 8 * v + q] : 0.0f;
            b = V8_LOAD(tail);
        }
        for (int p = 0; p < P; p++) acc[p][v] = b;
    }
    const int iy0 = oy * j->stride_h - j->pad_top;
    for (int ky = 0; ky < j->kernel_h; ky++) {
        const int iy = iy0 + ky;
        if (iy < 0 || iy >= j->in_h) continue;
        for (int kx = 0; kx < KW; kx++) {
            const float *in[2];
            int valid[2];
            for (int p = 0; p < P; p++) {
                int ix = (ox + p) * j->stride_w - j->pad_left + kx;
                valid[p] = ix >= 0 && ix < j->in_w;
                in[p] = j->input + ((size_t)iy * j->in_w + (valid[p] ? ix : 0)) * Cin;
            }
            const float *w = j->weights + (size_t)(ky * KW + kx) * Cin * OP + o;
            for (int i = 0; i < Cin; i++, w += OP) {
                v8 x[2];
                for (int p = 0; p < P; p++) x[p] = V8_SPLAT(valid[p] ? in[p][i] : 0.0f);
                for (int v = 0; v < V; v++) {
                    v8 wv = V8_LOAD(w + 8 * v);
                    for (int p = 0; p < P; p++) acc[p][v] += x[p] * wv;
                }
            }
        }
    }
    const v8 lo = V8_SPLAT(j->lower), hi = V8_SPLAT(j->upper);
    for (int p = 0; p < P; p++) {
        float *out = j->output + ((size_t)oy * j->out_w + ox + p) * j->out_channels + o;
        for (int v = 0; v < V; v++) {
            v8 r = V8_CLAMP(acc[p][v], lo, hi);
            if (o + 8 * v + 8 <= j->out_channels) V8_STORE(out + 8 * v, r);
            else {
                float tail[8];
                V8_STORE(tail, r);
                for (int q = 0; o + 8 * v + q < j->out_channels; q++) out[8 * v + q] = tail[q];
            }
        }
    }
}

// Two pixels whose windows lie inside the input horizontally, 32 output channels: one window row
// is KW * CIN consecutive floats of the input and KW * CIN consecutive rows of the packed weights,
// so no per-tap checks. KW and CIN are constants for the stem (3x3 on RGB), so the loop unrolls.
CLS_INLINE void direct_tile_interior(const direct_job *j, const int KW, const int CIN, int oy, int ox, int o) {
    const int OP = j->out_padded, RUN = KW * CIN;
    v8 acc[2][4];
    for (int v = 0; v < 4; v++) acc[0][v] = acc[1][v] = V8_LOAD(j->bias + o + 8 * v);
    const int iy0 = oy * j->stride_h - j->pad_top;
    const int ky_lo = iy0 < 0 ? -iy0 : 0, ky_hi = j->in_h - iy0 < j->kernel_h ? j->in_h - iy0 : j->kernel_h;
    const int ix0 = ox * j->stride_w - j->pad_left, ix1 = ix0 + j->stride_w;
    for (int ky = ky_lo; ky < ky_hi; ky++) {
        const float *row = j->input + (size_t)(iy0 + ky) * j->in_w * CIN;
        const float *p0 = row + (size_t)ix0 * CIN, *p1 = row + (size_t)ix1 * CIN;
        const float *w = j->weights + (size_t)ky * RUN * OP + o;
        for (int q = 0; q < RUN; q++, w += OP) {
            v8 x0 = V8_SPLAT(p0[q]), x1 = V8_SPLAT(p1[q]);
            for (int v = 0; v < 4; v++) {
                v8 wv = V8_LOAD(w + 8 * v);
                acc[0][v] += x0 * wv;
                acc[1][v] += x1 * wv;
            }
        }
    }
    const v8 lo = V8_SPLAT(j->lower), hi = V8_SPLAT(j->upper);
    float *out = j->output + ((size_t)oy * j->out_w + ox) * j->out_channels + o;
    for (int v = 0; v < 4; v++) {
        V8_STORE(out + 8 * v, V8_CLAMP(acc[0][v], lo, hi));
        V8_STORE(out + j->out_channels + 8 * v, V8_CLAMP(acc[1][v], lo, hi));
    }
}

CLS_INLINE void direct_task_body(const direct_job *j, int task) {
    int oy0 = j->out_h * task / j->tasks, oy1 = j->out_h * (task + 1) / j->tasks;
    // Pixel pairs (ox, ox + 1) whose windows are inside horizontally: ox*sw - pl >= 0 and
    // (ox+1)*sw - pl + kw - 1 < in_w. Only whole 32-channel blocks take the interior path.
    const int x_lo = (j->pad_left + j->stride_w - 1) / j->stride_w;
    const int blocks32 = j->out_channels / 32 * 32;
    for (int oy = oy0; oy < oy1; oy++) {
        int ox = 0;
        for (; ox + 2 <= j->out_w; ox += 2) {
            int o = 0;
            const int inside = ox >= x_lo && (ox + 1) * j->stride_w - j->pad_left + j->kernel_w <= j->in_w;
            if (inside) {
                if (j->kernel_w == 3 && j->in_channels == 3)
                    for (; o < blocks32; o += 32) direct_tile_interior(j, 3, 3, oy, ox, o);
                else
                    for (; o < blocks32; o += 32) direct_tile_interior(j, j->kernel_w, j->in_channels, oy, ox, o);
            }
            for (; o + 32 <= j->out_padded; o += 32) direct_tile(j, 2, 4, oy, ox, o);
            for (; o < j->out_padded; o += 8) direct_tile(j, 2, 1, oy, ox, o);
        }
        for (; ox < j->out_w; ox++) {
            int o = 0;
            for (; o + 32 <= j->out_padded; o += 32) direct_tile(j, 1, 4, oy, ox, o);
            for (; o < j->out_padded; o += 8) direct_tile(j, 1, 1, oy, ox, o);
        }
    }
}

#if CLS_HAS_AVX2_VARIANT
CLS_AVX2 static void direct_task_avx2(void *context, int task) { direct_task_body(context, task); }
#endif
static void direct_task_baseline(void *context, int task) { direct_task_body(context, task); }

void cls_direct_conv2d(const float *input, int in_h, int in_w, int in_channels, const float *packed,
                       const float *bias, int kernel_h, int kernel_w, int stride_h, int stride_w, int pad_top,
                       int pad_left, float *output, int out_h, int out_w, int out_channels, float lower,
                       float upper) {
    direct_job j = {
        .input = input, .weights = packed, .bias = bias, .output = output, .in_h = in_h, .in_w = in_w,
        .in_channels = in_channels, .kernel_h = kernel_h, .kernel_w = kernel_w, .stride_h = stride_h,
        .stride_w = stride_w, .pad_top = pad_top, .pad_left = pad_left, .out_h = out_h, .out_w = out_w,
        .out_channels = out_channels, .out_padded = (out_channels + 7) / 8 * 8, .lower = lower, .upper = upper,
        .tasks = 1,
    };
    int threads = cls_parallel_thread_count();
    if (threads > 1) j.tasks = out_h < threads * 2 ? out_h : threads * 2;
    cls_task_fn fn = direct_task_baseline;
#if CLS_HAS_AVX2_VARIANT
    if (cls_use_avx2()) fn = direct_task_avx2;
#endif
#if CLS_HAS_AVX512_VARIANT
    if (cls_use_avx512()) fn = cls_direct_task_avx512;
#endif
    cls_parallel_run(fn, &j, j.tasks);
}
