#include "CClassifyKernels.h"
#include "dispatch.h"
#include "parallel.h"
#include "vec.h"

// Direct convolution for layers with few input channels (the 3x3/2 stem on RGB, 3 -> 32), where
// im2col + GEMM would spend more time writing and re-reading the unfolded patches than computing.
// Weights are packed [kernel_h][kernel_w][in_channels][out_padded], out_padded = out rounded up to
// 8, zero-filled; for each tap and input channel the output channels are contiguous, so one input
// value is broadcast and multiplied into vectors of output channels. A tile of 2 output pixels x
// 32 output channels keeps 8 accumulators in registers (4 weight vectors shared by both pixels).

typedef struct {
    const float *input, *weights, *bias;
    float *output;
    int in_h, in_w, in_channels, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left;
    int out_h, out_w, out_channels, out_padded;
    float lower, upper;
    int tasks;
} direct_job;

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

CLS_INLINE void direct_task_body(const direct_job *j, int task) {
    int oy0 = j->out_h * task / j->tasks, oy1 = j->out_h * (task + 1) / j->tasks;
    for (int oy = oy0; oy < oy1; oy++) {
        int ox = 0;
        for (; ox + 2 <= j->out_w; ox += 2) {
            int o = 0;
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
    cls_parallel_run(fn, &j, j.tasks);
}
