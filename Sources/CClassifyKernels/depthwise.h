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

/// Channels swept together over the map by the AVX2 and portable paths: all `channels` for 3x3
/// windows; for 5x5 and larger, a multiple of 16 small enough that the window rows of the group stay
/// in L1 (KH rows x in_w pixels x group floats within DW_GROUP_BYTES). See depthwise.c for why; the
/// AVX-512 path has its own rule (channel_group in depthwise_avx512.c).
static inline int dw_channel_group(const dw_job *j, int channels) {
    if (j->kernel_w < 5) return channels;
    int group = (int)(DW_GROUP_BYTES / ((size_t)j->kernel_h * j->in_w * sizeof(float))) / 16 * 16;
    return group < 16 ? 16 : group;
}

/// Task `task` of a job split into row_tasks x channel_tasks (channel ranges on multiples of 16).
void cls_depthwise_task_avx512(void *context, int task);

#endif
