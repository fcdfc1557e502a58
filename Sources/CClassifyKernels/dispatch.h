#ifndef CCLASSIFY_DISPATCH_H
#define CCLASSIFY_DISPATCH_H
// Compiles one kernel body more than once. The body is an always-inline static function; inlining
// it into a function carrying target("avx2,fma") lets the compiler vectorize it with 256-bit
// registers and fused multiply-add, while the baseline copy stays runnable on any x86-64 (or
// other) CPU. Kernels with an AVX-512 variant write it separately (16-float vectors, 32
// registers), in a file of its own named *_avx512.c, under CLS_AVX512.
int cls_use_avx2(void);
int cls_use_avx512(void);

#if defined(__x86_64__) || defined(__i386__)
#define CLS_AVX2 __attribute__((target("avx2,fma")))
#define CLS_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")))
#define CLS_HAS_AVX2_VARIANT 1
#define CLS_HAS_AVX512_VARIANT 1
#else
#define CLS_AVX2
#define CLS_AVX512
#define CLS_HAS_AVX2_VARIANT 0
#define CLS_HAS_AVX512_VARIANT 0
#endif
#define CLS_INLINE static inline __attribute__((always_inline))
#endif
