#include "CClassifyKernels.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int cls_allocator_keep_freed_memory(size_t mmap_threshold, size_t trim_threshold) {
#if defined(__GLIBC__)
    // mallopt returns 1 on success. Setting either value also turns off glibc's dynamic
    // adjustment, which is what lets a 1 MB buffer freed at the top of the heap be trimmed
    // and faulted in again for the next file.
    return mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, (int)trim_threshold) == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}

int cls_allocator_limit_arenas(int arenas) {
#if defined(__GLIBC__)
    return mallopt(M_ARENA_MAX, arenas) == 1;
#else
    (void)arenas;
    return 0;
#endif
}

int cls_allocator_release_freed_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
