#ifndef CCLASSIFY_KERNELS_H
#define CCLASSIFY_KERNELS_H
// Hot loops of the inference runtime. Each kernel is written once in portable C and compiled
// twice: a baseline build and an AVX2+FMA build (per-function target attributes, so the package
// needs no compiler flags). The entry points below pick the variant once per process from cpuid.
// Layout everywhere is NHWC, batch 1: element (y, x, c) of an HxWxC map is at (y*W + x)*C + c.
#include <stddef.h>
#include <stdint.h>

/// 1 when the CPU and OS support AVX2 and FMA (checked once with cpuid), else 0.
int cls_cpu_has_avx2_fma(void);
/// Forces the baseline variants (0) or the best available (1); used by tests to run both paths.
void cls_kernels_set_vector_path(int enabled);

/// Depthwise convolution: out(y,x,c) = clamp(bias[c] + sum_{ky,kx} in(y*sh+ky-pt, x*sw+kx-pl, c) * w[ky][kx][c]).
/// Weights are packed [kernel_h][kernel_w][channels]; taps outside the input read zero.
void cls_depthwise_conv2d(const float *input, int in_h, int in_w, int channels,
                          const float *weights, const float *bias, int kernel_h, int kernel_w,
                          int stride_h, int stride_w, int pad_top, int pad_left,
                          float *output, int out_h, int out_w, float lower, float upper);

/// In place over rows x channels: data[r][c] = clamp(data[r][c] + bias[c]) (bias may be NULL).
void cls_bias_activation(float *data, size_t rows, size_t channels, const float *bias, float lower, float upper);

/// out[i] = clamp(a[i] + b[i]); out may alias a or b.
void cls_add_activation(const float *a, const float *b, float *out, size_t count, float lower, float upper);

/// Dot products of fp32 vectors with binary16 rows (little-endian IEEE half bits, e.g. stored
/// feature prints): out[q * count + r] = sum_k queries[q * dim + k] * half(rows[r * dim + k]).
/// Used by TagIndex similarity search and near-duplicate grouping.
void cls_half_dot_block(const float *queries, size_t query_count, const uint16_t *rows, size_t count, size_t dim,
                        float *out);

#endif
