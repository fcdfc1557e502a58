#ifndef CCLASSIFY_DEPTHWISE_H
#define CCLASSIFY_DEPTHWISE_H
// Internal: one call of cls_depthwise_conv2d, shared by its AVX2/portable body (depthwise.c) and
// its AVX-512 body (depthwise_avx512.c).
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const float *input, *weights, *bias;
    float *output;
    int in_h, in_w, channels, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left, out_h, out_w;
    float lower, upper;
    int row_tasks, channel_tasks;
    /// Not NULL: the AVX-512 body writes each output value quantized, as cls_quantize_u8 would,
    /// to q[pixel * q_stride + c] (with q_multipliers[c] and q_zero_point), and no floats.
    uint8_t *q;
    const float *q_multipliers;
    int q_zero_point;
    size_t q_stride;
} dw_job;

#ifndef DW_GROUP_BYTES
#define DW_GROUP_BYTES (16 * 1024)
#endif

/// Channels swept together over the map: all `channels` for 3x3 windows; for 5x5 and larger, a
/// multiple of 16, at least `minimum`, small enough above that for the group's window rows (KH rows
/// x in_w pixels), and with `count_weights` its KH x KW weights, to stay within `budget` bytes of
/// L1. Each path passes its own figures: AVX2 and portable (depthwise.c, which says why) 16 KB of
/// rows, at least 16; AVX-512 24 KB of rows and weights, at least 32 (depthwise_avx512.c).
static inline int dw_channel_group(const dw_job *j, int channels, size_t budget, int count_weights, int minimum) {
    if (j->kernel_w < 5) return channels;
    const size_t taps = count_weights ? (size_t)j->kernel_h * j->kernel_w : 0;
    int group = (int)(budget / (((size_t)j->kernel_h * j->in_w + taps) * sizeof(float))) / 16 * 16;
    if (group < minimum) group = minimum;
    return group < channels ? group : channels;
}

/// Task `task` of a job split into row_tasks x channel_tasks (channel ranges on multiples of 16).
void cls_depthwise_task_avx512(void *context, int task);

#endif
