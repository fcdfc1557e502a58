// The part of a decoder's output a caller asks for (a face's region of a large photo): every codec
// takes it the same way, between open and read_pixels.
//
//   cls_output_crop crop = {.x = 10, .y = 20, .width = 64, .height = 48};
//   if (cls_png_decoder_crop(decoder, crop, &header, &message) == CLS_OK) { /* header: 64 x 48 */ }
#ifndef CLS_OUTPUT_CROP_H
#define CLS_OUTPUT_CROP_H

#include <stdint.h>

#include "cls_status.h"

/// A rectangle of a decoder's output (after reduction, in stored orientation): only it is
/// written, `width` x `height` pixels. A width of 0 means the whole output.
typedef struct cls_output_crop {
    uint32_t x;
    uint32_t y;
    uint32_t width;
    uint32_t height;
} cls_output_crop;

/// Checks `crop` against an output of `*output_width` x `*output_height`, keeps it in `*kept`
/// and makes the output size the crop's: what a decoder's crop call does before read_pixels.
cls_status cls_output_crop_set(cls_output_crop crop, cls_output_crop *kept, uint32_t *output_width,
                               uint32_t *output_height, cls_message *message);

#endif
