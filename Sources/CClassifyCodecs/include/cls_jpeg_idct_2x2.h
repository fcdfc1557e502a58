// The 2x2 inverse DCT of a JPEG decode at 1/8 scale (a 4:2:0 photo's chroma blocks), for runs of
// blocks that land side by side in one pair of output rows. Every path computes what libjpeg-turbo's
// SSE2 transform (jsimd_idct_2x2_sse2, the one it runs on x86-64) computes for each block, to the
// byte: 16-bit dequantization, jidctred.c's constants and descaling, 16-bit saturation between the
// passes, 8-bit saturation at the end. The AVX2 and AVX-512 paths run its steps on two and four
// blocks at once (one block per 128-bit lane), so there is no call per block.
//
//   const int16_t *blocks[3] = {a, b, c};   // coefficients in natural order, 64 each
//   cls_jpeg_idct_2x2(cls_jpeg_idct_2x2_best_path(), blocks, 3, quant, row0 + x, row1 + x);
//   // row0[x..x+5] and row1[x..x+5] hold the three blocks' 2x2 samples
#ifndef CLS_JPEG_IDCT_2X2_H
#define CLS_JPEG_IDCT_2X2_H

#include <stddef.h>
#include <stdint.h>

/// The implementations; a path the CPU lacks is never run.
typedef enum cls_jpeg_idct_2x2_path {
    /// Plain C, one block at a time: the reference the others are tested against.
    CLS_JPEG_IDCT_2X2_SCALAR = 0,
    /// SSE2, one block per call of the loop (x86-64 only).
    CLS_JPEG_IDCT_2X2_SSE2 = 1,
    /// AVX2, two blocks at a time.
    CLS_JPEG_IDCT_2X2_AVX2 = 2,
    /// AVX-512 (BW), four blocks at a time.
    CLS_JPEG_IDCT_2X2_AVX512 = 3,
} cls_jpeg_idct_2x2_path;

/// Whether this CPU (and build) can run `path`.
int cls_jpeg_idct_2x2_has_path(cls_jpeg_idct_2x2_path path);

/// The path for the kernels' level on this thread (cls_kernels_level: CLASSIFY_KERNELS or the CPU).
cls_jpeg_idct_2x2_path cls_jpeg_idct_2x2_best_path(void);

/// Transforms `count` blocks (64 coefficients each, natural order) with the quantization steps
/// `quant` (natural order, as 16-bit values: libjpeg's islow multipliers), writing block i's two
/// rows at row0[2i], row0[2i + 1] and row1[2i], row1[2i + 1].
void cls_jpeg_idct_2x2(cls_jpeg_idct_2x2_path path, const int16_t *const *blocks, size_t count, const int16_t quant[64],
                       uint8_t *row0, uint8_t *row1);

#endif
