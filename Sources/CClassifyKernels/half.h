#ifndef CCLASSIFY_HALF_H
#define CCLASSIFY_HALF_H
// IEEE binary16 helpers shared by the kernels that read halves (half_dot.c, half_floats.c).
#include <stdint.h>

#include "dispatch.h"

/// binary16 bits -> float, exact for finite values: the magnitude bits moved to fp32 position and
/// scaled by 2^112 re-bias the exponent and normalize subnormal halves in one multiply.
CLS_INLINE float half_to_float(uint16_t half) {
    union { uint32_t bits; float value; } magnitude = { (uint32_t)(half & 0x7FFF) << 13 };
    union { uint32_t bits; float value; } result;
    result.value = magnitude.value * 0x1p112f;
    result.bits |= (uint32_t)(half & 0x8000) << 16;
    return result.value;
}

#if CLS_HAS_AVX2_VARIANT
/// Whether the CPU converts halves in hardware (F16C's vcvtph2ps; every AVX2 CPU has it).
static inline int has_f16c(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("f16c") ? 1 : 0;
    }
    return cached;
}
#endif

#endif
