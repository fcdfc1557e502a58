#ifndef CCLASSIFY_VEC_H
#define CCLASSIFY_VEC_H
// Eight floats as one value (GCC/Clang vector extension). In a target("avx2,fma") function this
// is one ymm register and `acc += a * b` becomes vfmadd; in the baseline build the same source
// becomes pairs of SSE (or NEON) instructions. Helpers are macros, not functions: passing a
// 256-bit vector by value to a function without AVX enabled would change the calling convention.
#include <string.h>

typedef float v8 __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));
// Same vector with 4-byte alignment, for loads and stores at any float address.
typedef float v8u __attribute__((vector_size(32), aligned(4)));

#define V8_LOAD(p) ((v8)(*(const v8u *)(const void *)(p)))
#define V8_STORE(p, v) (*(v8u *)(void *)(p) = (v))
#define V8_SPLAT(x) ((v8){(x), (x), (x), (x), (x), (x), (x), (x)})
#define V8_SELECT(mask, a, b) ((v8)(((v8i)(a) & ~(mask)) | ((v8i)(b) & (mask))))
// max/min written as compare + select so they compile to vmaxps/vminps (no NaN fix-up code).
#define V8_MAX(a, b) V8_SELECT((a) < (b), a, b)
#define V8_MIN(a, b) V8_SELECT((a) > (b), a, b)
#define V8_CLAMP(v, lo, hi) V8_MIN(V8_MAX(v, lo), hi)

#endif
