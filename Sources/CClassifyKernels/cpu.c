#include <stdatomic.h>

#include "CClassifyKernels.h"
#include "dispatch.h"

// Both flags are read by every kernel call from many threads. Relaxed atomics cost nothing more
// than plain loads on x86 and make the lazy cpuid check race-free (a plain static was a data race,
// reported by ThreadSanitizer when two classifications started at once).
static atomic_int vector_path_enabled = 1;

#if defined(__x86_64__) || defined(__i386__)
int cls_cpu_has_avx2_fma(void) {
    static atomic_int cached = -1;
    int value = atomic_load_explicit(&cached, memory_order_relaxed);
    if (value >= 0) return value;
    __builtin_cpu_init();
    // Every thread computes the same answer, so whichever store lands last is right.
    value = (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
    atomic_store_explicit(&cached, value, memory_order_relaxed);
    return value;
}
#else
int cls_cpu_has_avx2_fma(void) { return 0; }
#endif

void cls_kernels_set_vector_path(int enabled) {
    atomic_store_explicit(&vector_path_enabled, enabled, memory_order_relaxed);
}

int cls_use_avx2(void) {
    return atomic_load_explicit(&vector_path_enabled, memory_order_relaxed) && cls_cpu_has_avx2_fma();
}
