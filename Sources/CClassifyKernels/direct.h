#ifndef CCLASSIFY_DIRECT_H
#define CCLASSIFY_DIRECT_H
// Internal: one call of cls_direct_conv2d, shared by its AVX2/portable body (direct.c) and its
// AVX-512 body (direct_avx512.c).

typedef struct {
    const float *input, *weights, *bias;
    float *output;
    int in_h, in_w, in_channels, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left;
    int out_h, out_w, out_channels, out_padded;
    float lower, upper;
    int tasks;
} direct_job;

/// Output rows [out_h * task / tasks, out_h * (task + 1) / tasks).
void cls_direct_task_avx512(void *context, int task);

#endif
