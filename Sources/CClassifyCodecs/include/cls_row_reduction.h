// Reduction of decoded rows to 1/2, 1/4 or 1/8 of the full size while they are decoded, for the
// codecs that cannot scale by themselves (TIFF, PNG, HEIF/AVIF), so no full-size RGB buffer is
// ever needed. The rule is JPEG's DCT scaling (jpeg_calc_output_dimensions): the output is
// ceil(width / factor) x ceil(height / factor), and each output pixel is the rounded mean of the
// factor x factor block under it (fewer at the right and bottom edges), which is what a DCT-scaled
// JPEG decode approximates, so every format gives the classifier and the face detector the same
// kind of reduced picture.
//
//   cls_row_reducer reducer;
//   if (cls_row_reducer_init(&reducer, width, height, cls_reduction_factor(width, height, 256), rgb)) {
//       for (uint32_t y = 0; y < height; y++) cls_row_reducer_add(&reducer, row(y));
//       cls_row_reducer_free(&reducer);
//   }
#ifndef CLS_ROW_REDUCTION_H
#define CLS_ROW_REDUCTION_H

#include <stddef.h>
#include <stdint.h>

#include "cls_output_crop.h"

typedef struct cls_row_reducer {
    uint32_t width;
    uint32_t height;
    uint32_t factor;
    uint32_t output_width;
    uint32_t output_height;
    /// output_width * output_height * 3 bytes, owned by the caller.
    uint8_t *output;
    /// Per output column and channel, the sum of the block rows added so far (factor > 1).
    uint32_t *sums;
    /// Full-size rows added so far.
    uint32_t rows_added;
    /// Only this rectangle of the reduced picture is written to `output` (width 0: all of it).
    cls_output_crop crop;
} cls_row_reducer;

/// The largest of 8, 4, 2 whose reduced short side, ceil(short / factor), is still at least
/// `minimum_short_side`; 1 when none is, or when `minimum_short_side` is 0 (full size).
uint32_t cls_reduction_factor(uint32_t width, uint32_t height, uint32_t minimum_short_side);

/// ceil(length / factor): the reduced length of a side.
uint32_t cls_reduced_length(uint32_t length, uint32_t factor);

/// Prepares to reduce a `width` x `height` image by `factor` (1, 2, 4 or 8) into `output`.
/// Returns 0 when the scratch row cannot be allocated.
int cls_row_reducer_init(cls_row_reducer *reducer, uint32_t width, uint32_t height, uint32_t factor,
                         uint8_t *output);

/// Writes only `crop` (a rectangle of the reduced picture, already checked) to the output, which
/// then holds crop.width * crop.height * 3 bytes. Call after init, before the first row.
void cls_row_reducer_crop(cls_row_reducer *reducer, cls_output_crop crop);

/// Adds the next full-size row (`width` RGB pixels); rows beyond `height` are ignored.
void cls_row_reducer_add(cls_row_reducer *reducer, const uint8_t *rgb_row);

/// Bytes of scratch the reducer holds (its sum row).
size_t cls_row_reducer_scratch_bytes(const cls_row_reducer *reducer);

/// Releases the scratch row (the output stays the caller's).
void cls_row_reducer_free(cls_row_reducer *reducer);

#endif
