#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CClassifyKernels.h"
#include "dispatch.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

// Which kernel variants run. Every kernel call reads the level, from many threads, so it is a
// relaxed atomic (as cheap as a plain load on x86; a plain static was a data race reported by
// ThreadSanitizer when two classifications started at once). -1 = not decided yet: the first
// call looks at CLASSIFY_KERNELS and the CPU.
static atomic_int selected_level = -1;
// A thread's own level, -1 when it has none: a test comparing variants sets it on its thread
// without switching the kernels of whatever else the process runs meanwhile, and a pool worker
// takes the level of the thread whose task it runs.
static _Thread_local int thread_level = -1;

#if defined(__x86_64__) || defined(__i386__)
// XCR0, the state components the OS saves on a context switch (needs OSXSAVE, checked by the caller).
static unsigned long long read_xcr0(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

// What the CPU and the OS support: a CPU flag alone is not enough, the OS must also save the wider
// registers (XCR0 bits 1-2 for SSE/AVX, 5-7 for the AVX-512 mask and upper ZMM registers).
static int detect_level(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return CLS_LEVEL_PORTABLE;
    const int fma = (c >> 12) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx || !fma) return CLS_LEVEL_PORTABLE;
    const unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) return CLS_LEVEL_PORTABLE;
    if (__get_cpuid_max(0, 0) < 7) return CLS_LEVEL_PORTABLE;
    __cpuid_count(7, 0, a, b, c, d);
    const int avx2 = (b >> 5) & 1;
    if (!avx2) return CLS_LEVEL_PORTABLE;
    const int avx512f = (b >> 16) & 1, avx512dq = (b >> 17) & 1, avx512bw = (b >> 30) & 1, avx512vl = (b >> 31) & 1;
    if (avx512f && avx512dq && avx512bw && avx512vl && (xcr0 & 0xE6) == 0xE6) return CLS_LEVEL_AVX512;
    return CLS_LEVEL_AVX2;
}
#else
static int detect_level(void) { return CLS_LEVEL_PORTABLE; }
#endif

int cls_cpu_kernel_level(void) {
    static atomic_int cached = -1;
    int value = atomic_load_explicit(&cached, memory_order_relaxed);
    if (value >= 0) return value;
    // Every thread computes the same answer, so whichever store lands last is right.
    value = detect_level();
    atomic_store_explicit(&cached, value, memory_order_relaxed);
    return value;
}

int cls_cpu_has_avx2_fma(void) { return cls_cpu_kernel_level() >= CLS_LEVEL_AVX2; }

// The int8 dot-product instructions: AVX512_VNNI is cpuid leaf 7.0 ECX bit 11 (EVEX, needs the
// AVX-512 state, so the AVX-512 level); AVX-VNNI is leaf 7.1 EAX bit 4 (VEX, 256-bit, needs AVX2).
#if defined(__x86_64__) || defined(__i386__)
static int detect_int8_variant(void) {
    const int level = cls_cpu_kernel_level();
    if (level < CLS_LEVEL_AVX2) return CLS_INT8_PORTABLE;
    unsigned a, b, c, d;
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned max_subleaf = a;
    const int avx512_vnni = (c >> 11) & 1;
    int avx_vnni = 0;
    if (max_subleaf >= 1) {
        __cpuid_count(7, 1, a, b, c, d);
        avx_vnni = (a >> 4) & 1;
    }
    int mask = 1 << CLS_INT8_PORTABLE | 1 << CLS_INT8_AVX2;
    if (avx_vnni) mask |= 1 << CLS_INT8_AVX_VNNI;
    if (avx512_vnni && level >= CLS_LEVEL_AVX512) mask |= 1 << CLS_INT8_AVX512_VNNI;
    return mask;
}
#else
static int detect_int8_variant(void) { return 1 << CLS_INT8_PORTABLE; }
#endif

int cls_cpu_int8_variants(void) {
    static atomic_int cached = -1;
    int value = atomic_load_explicit(&cached, memory_order_relaxed);
    if (value >= 0) return value;
    value = detect_int8_variant();
    atomic_store_explicit(&cached, value, memory_order_relaxed);
    return value;
}

int cls_cpu_has_int8_variant(int variant) {
    return variant >= 0 && variant <= CLS_INT8_AVX512_VNNI && ((cls_cpu_int8_variants() >> variant) & 1);
}

const char *cls_int8_variant_name(int variant) {
    switch (variant) {
    case CLS_INT8_AVX512_VNNI: return "avx512-vnni";
    case CLS_INT8_AVX_VNNI: return "avx-vnni";
    case CLS_INT8_AVX2: return "avx2";
    default: return "portable";
    }
}

// CLASSIFY_INT8_KERNELS forces an int8 variant below the one the kernel level allows (to measure
// AVX-VNNI on a CPU that also has AVX-512 VNNI); read once.
static int int8_variant_override(void) {
    static atomic_int cached = -2;
    int value = atomic_load_explicit(&cached, memory_order_relaxed);
    if (value != -2) return value;
    value = -1;
    const char *name = getenv("CLASSIFY_INT8_KERNELS");
    if (name && *name) {
        for (int v = CLS_INT8_PORTABLE; v <= CLS_INT8_AVX512_VNNI; v++)
            if (strcmp(name, cls_int8_variant_name(v)) == 0) value = v;
        if (value < 0)
            fprintf(stderr, "classify: CLASSIFY_INT8_KERNELS=%s is not one of avx512-vnni, avx-vnni, avx2, portable; ignored\n", name);
        else if (!cls_cpu_has_int8_variant(value)) {
            fprintf(stderr, "classify: CLASSIFY_INT8_KERNELS=%s but this CPU/OS lacks it; ignored\n", name);
            value = -1;
        }
    }
    atomic_store_explicit(&cached, value, memory_order_relaxed);
    return value;
}

int cls_int8_variant(void) {
    const int level = cls_kernels_level();
    int best = CLS_INT8_PORTABLE;
    if (level >= CLS_LEVEL_AVX2) {
        best = CLS_INT8_AVX2;
        // The avx2 level stands for a CPU without VNNI (CLASSIFY_KERNELS=avx2 measures that path).
        if (level >= CLS_LEVEL_AVX512) {
            if (cls_cpu_has_int8_variant(CLS_INT8_AVX512_VNNI)) best = CLS_INT8_AVX512_VNNI;
            else if (cls_cpu_has_int8_variant(CLS_INT8_AVX_VNNI)) best = CLS_INT8_AVX_VNNI;
        } else if (level == CLS_LEVEL_AVX2 && cls_cpu_kernel_level() == CLS_LEVEL_AVX2 &&
                   cls_cpu_has_int8_variant(CLS_INT8_AVX_VNNI)) {
            best = CLS_INT8_AVX_VNNI;  // an AVX2-only CPU with AVX-VNNI (Alder Lake's E-cores)
        }
    }
    const int forced = int8_variant_override();
    return forced >= 0 && forced < best ? forced : best;
}

int cls_kernel_level_named(const char *name) {
    if (!name) return -1;
    if (strcmp(name, "avx512") == 0) return CLS_LEVEL_AVX512;
    if (strcmp(name, "avx2") == 0) return CLS_LEVEL_AVX2;
    if (strcmp(name, "portable") == 0) return CLS_LEVEL_PORTABLE;
    return -1;
}

const char *cls_kernel_level_name(int level) {
    switch (level) {
    case CLS_LEVEL_AVX512: return "avx512";
    case CLS_LEVEL_AVX2: return "avx2";
    default: return "portable";
    }
}

int cls_kernels_set_level(int level) {
    const int best = cls_cpu_kernel_level();
    if (level < CLS_LEVEL_PORTABLE) level = CLS_LEVEL_PORTABLE;
    if (level > best) level = best;
    atomic_store_explicit(&selected_level, level, memory_order_relaxed);
    return level;
}

// The level asked for by CLASSIFY_KERNELS, or the best one; a value that cannot be honoured is
// said once on stderr (a library cannot throw from here, and silently ignoring it would make a
// measurement lie).
static int initial_level(void) {
    const int best = cls_cpu_kernel_level();
    const char *value = getenv("CLASSIFY_KERNELS");
    if (!value || !*value) return best;
    const int wanted = cls_kernel_level_named(value);
    if (wanted < 0) {
        fprintf(stderr, "classify: CLASSIFY_KERNELS=%s is not one of avx512, avx2, portable; using %s\n", value,
                cls_kernel_level_name(best));
        return best;
    }
    if (wanted > best) {
        fprintf(stderr, "classify: CLASSIFY_KERNELS=%s but this CPU/OS lacks %s; using %s\n", value,
                wanted == CLS_LEVEL_AVX512 ? "AVX-512F/DQ/BW/VL with ZMM state enabled" : "AVX2+FMA",
                cls_kernel_level_name(best));
        return best;
    }
    return wanted;
}

int cls_kernels_level(void) {
    if (thread_level >= 0) return thread_level;
    int level = atomic_load_explicit(&selected_level, memory_order_relaxed);
    if (level >= 0) return level;
    level = initial_level();
    int expected = -1;
    // Only the first caller's choice sticks (the warning may print twice in a race; harmless).
    if (!atomic_compare_exchange_strong_explicit(&selected_level, &expected, level, memory_order_relaxed,
                                                 memory_order_relaxed))
        level = expected;
    return level;
}

int cls_kernels_set_thread_level(int level) {
    const int previous = thread_level;
    const int best = cls_cpu_kernel_level();
    thread_level = level < 0 ? -1 : level > best ? best : level;
    return previous;
}

int cls_use_avx2(void) { return cls_kernels_level() >= CLS_LEVEL_AVX2; }
int cls_use_avx512(void) { return cls_kernels_level() >= CLS_LEVEL_AVX512; }
