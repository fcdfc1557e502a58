#include "CClassifyKernels.h"
#include "parallel.h"

#include <string.h>

// A pointwise expansion followed by a depthwise convolution, computed in bands of rows so the
// expanded map (e.g. 112x112x96 = 4.8 MB in EfficientNet-Lite0's block 1) never goes to memory:
// each band of expanded rows is written to a small buffer (sized to stay in L2), the depthwise
// kernel reads it right away, and the rows the next band's window still needs are moved to the
// front of the buffer rather than recomputed.
//
// The depthwise kernel runs on the buffer as if it were a short image: its rows are input rows
// [first, last) of the real map, and pad_top is shifted so window row indices line up. Rows of
// the real map's own top/bottom padding lie outside the buffer and read as zero, as they should;
// a band's rows are chosen so its windows never reach rows outside the buffer otherwise.
//
// With several threads, the output rows are split into contiguous ranges, one per pipeline, each
// with its own buffer; inside a pipeline the kernels run on one thread.

typedef struct {
    const float *input;
    int in_h, in_w, in_c;
    const float *pw_packed, *pw_bias;
    int mid_c;
    float pw_lower, pw_upper;
    const float *dw_weights, *dw_bias;
    int kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left;
    float dw_lower, dw_upper;
    float *output;
    int out_h, out_w;
    // When q is set, the depthwise output is written as cls_depthwise_conv2d_u8 writes it (uint8
    // rows q_stride apart) instead of floats, with the band's floats (band_floats) after the
    // expanded rows in each pipeline's scratch for the paths that quantize after the convolution.
    const float *q_multipliers;
    int q_zero_point;
    uint8_t *q;
    size_t q_stride, band_floats;
    float *scratch;
    size_t pipeline_floats;
    int band_rows, pipelines;
} pd_job;

static void pd_task(void *context, int task) {
    const pd_job *j = context;
    const size_t row_floats = (size_t)j->in_w * j->mid_c;
    float *buffer = j->scratch + (size_t)task * j->pipeline_floats;
    const int oy_begin = j->out_h * task / j->pipelines, oy_end = j->out_h * (task + 1) / j->pipelines;
    int held_lo = 0, held_hi = 0;  // input rows currently in the buffer, from its start
    for (int oy0 = oy_begin; oy0 < oy_end; oy0 += j->band_rows) {
        const int oy1 = oy0 + j->band_rows < oy_end ? oy0 + j->band_rows : oy_end;
        int lo = oy0 * j->stride_h - j->pad_top, hi = (oy1 - 1) * j->stride_h - j->pad_top + j->kernel_h;
        if (lo < 0) lo = 0;
        if (hi > j->in_h) hi = j->in_h;
        if (hi <= lo) {  // windows entirely in the padding (only for degenerate shapes)
            lo = hi = 0;
        }
        // Keep the rows this band shares with the previous one; compute the rest.
        int keep_lo = lo > held_lo ? lo : held_lo, keep_hi = held_hi < hi ? held_hi : hi;
        int first_new = lo;
        if (keep_lo == lo && keep_hi > keep_lo) {
            memmove(buffer, buffer + (size_t)(keep_lo - held_lo) * row_floats, (size_t)(keep_hi - keep_lo) * row_floats * sizeof(float));
            first_new = keep_hi;
        }
        if (hi > first_new) {
            cls_gemm_packed((size_t)(hi - first_new) * j->in_w, j->mid_c, j->in_c,
                            j->input + (size_t)first_new * j->in_w * j->in_c, j->in_c, j->pw_packed, j->pw_bias,
                            j->pw_lower, j->pw_upper, 0, 0, 0, buffer + (size_t)(first_new - lo) * row_floats, j->mid_c);
        }
        held_lo = lo;
        held_hi = hi;
        const int band_pad_top = j->pad_top + lo - oy0 * j->stride_h;
        if (j->q) {
            cls_depthwise_conv2d_u8(buffer, hi - lo, j->in_w, j->mid_c, j->dw_weights, j->dw_bias, j->kernel_h, j->kernel_w,
                                    j->stride_h, j->stride_w, band_pad_top, j->pad_left, oy1 - oy0, j->out_w, j->dw_lower,
                                    j->dw_upper, j->q_multipliers, j->q_zero_point,
                                    j->q + (size_t)oy0 * j->out_w * j->q_stride, j->q_stride,
                                    buffer + (j->pipeline_floats - j->band_floats));
        } else {
            cls_depthwise_conv2d(buffer, hi - lo, j->in_w, j->mid_c, j->dw_weights, j->dw_bias, j->kernel_h, j->kernel_w,
                                 j->stride_h, j->stride_w, band_pad_top, j->pad_left,
                                 j->output + (size_t)oy0 * j->out_w * j->mid_c, oy1 - oy0, j->out_w, j->dw_lower,
                                 j->dw_upper);
        }
    }
}

size_t cls_pointwise_depthwise_scratch(int in_w, int mid_c, int kernel_h, int stride_h, int band_rows, int out_w,
                                       int quantizes) {
    const size_t expanded = (size_t)((band_rows - 1) * stride_h + kernel_h) * in_w * mid_c;
    return expanded + (quantizes ? (size_t)band_rows * out_w * mid_c : 0);
}

void cls_pointwise_depthwise(const float *input, int in_h, int in_w, int in_c, const float *pw_packed,
                             const float *pw_bias, int mid_c, float pw_lower, float pw_upper,
                             const float *dw_weights, const float *dw_bias, int kernel_h, int kernel_w, int stride_h,
                             int stride_w, int pad_top, int pad_left, float dw_lower, float dw_upper, float *output,
                             const float *q_multipliers, int q_zero_point, uint8_t *q, size_t q_stride, int out_h,
                             int out_w, int band_rows, float *scratch, size_t scratch_floats) {
    if (band_rows < 1) band_rows = 1;
    pd_job j = {
        .input = input, .in_h = in_h, .in_w = in_w, .in_c = in_c, .pw_packed = pw_packed, .pw_bias = pw_bias,
        .mid_c = mid_c, .pw_lower = pw_lower, .pw_upper = pw_upper, .dw_weights = dw_weights, .dw_bias = dw_bias,
        .kernel_h = kernel_h, .kernel_w = kernel_w, .stride_h = stride_h, .stride_w = stride_w, .pad_top = pad_top,
        .pad_left = pad_left, .dw_lower = dw_lower, .dw_upper = dw_upper, .output = output, .out_h = out_h,
        .out_w = out_w, .q_multipliers = q_multipliers, .q_zero_point = q_zero_point, .q = q, .q_stride = q_stride,
        .scratch = scratch, .band_rows = band_rows,
    };
    j.band_floats = q ? (size_t)band_rows * out_w * mid_c : 0;
    j.pipeline_floats = cls_pointwise_depthwise_scratch(in_w, mid_c, kernel_h, stride_h, band_rows, out_w, q != NULL);
    int pipelines = cls_parallel_thread_count();
    size_t fit = j.pipeline_floats ? scratch_floats / j.pipeline_floats : 1;
    if ((size_t)pipelines > fit) pipelines = (int)fit;
    if (pipelines > out_h) pipelines = out_h;
    if (pipelines < 1) pipelines = 1;
    j.pipelines = pipelines;
    cls_parallel_run(pd_task, &j, pipelines);
}
