#ifndef CCLASSIFY_DEPTHWISE_H
#define CCLASSIFY_DEPTHWISE_H
// Internal: one call of cls_depthwise_conv2d, shared by its AVX2/portable body (depthwise.c) and
// its AVX-512 body (depthwise_avx512.c).

typedef struct {
    const float *input, *weights, *bias;
    float *output;
    int in_h, in_w, channels, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, out_h, out_w;
    float lower, upper;
    int row_tasks, channel_tasks;
} dw_job;

/// Task `task` of a job split into row_tasks x channel_tasks (channel ranges on multiples of 16).
void cls_depthwise_task_avx512(void *context, int task);

#endif
