#ifndef CCLASSIFY_KERNELS_H
#define CCLASSIFY_KERNELS_H
#include <stdint.h>
#include <stddef.h>

/// 1 when the CPU and OS support AVX2 and FMA (checked once with cpuid/xgetbv), else 0.
int cls_cpu_has_avx2_fma(void);

#endif
