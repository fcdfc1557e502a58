#include "CClassifyKernels.h"
#include "dispatch.h"

static int vector_path_enabled = 1;

#if defined(__x86_64__) || defined(__i386__)
int cls_cpu_has_avx2_fma(void) {
    static int cached = -1;
    if (cached >= 0) return cached;
    __builtin_cpu_init();
    cached = (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
    return cached;
}
#else
int cls_cpu_has_avx2_fma(void) { return 0; }
#endif

void cls_kernels_set_vector_path(int enabled) { vector_path_enabled = enabled; }

int cls_use_avx2(void) { return vector_path_enabled && cls_cpu_has_avx2_fma(); }
