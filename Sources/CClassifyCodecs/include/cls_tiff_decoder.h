// TIFF decoding through libtiff's RGBA interface: strips and tiles, 1 to 16 bits per sample,
// gray, RGB, RGBA, CMYK, palette, YCbCr and the compressions this libtiff has; the first page
// of a multi-page file. Pixels come in stored order; info.orientation carries the Orientation
// tag for Swift to apply. Alpha is composited onto white.
//
//   cls_tiff_decoder *decoder; cls_image_info info; cls_message message;
//   if (cls_tiff_decoder_open(data, size, 100000000, 256, &decoder, &info, &message) == CLS_OK) {
//       uint8_t *rgb = malloc(info.output_width * info.output_height * 3);
//       cls_tiff_decoder_read_pixels(decoder, rgb, info.output_width * info.output_height * 3, &message);
//   }
//   cls_tiff_decoder_close(decoder);
//
// libtiff reports errors through a handler; ours (set per file, so threads do not share it)
// keeps the first message, and every call's failure is turned into a status here.
#ifndef CLS_TIFF_DECODER_H
#define CLS_TIFF_DECODER_H

#include "cls_image_info.h"
#include "cls_row_reduction.h"
#include "cls_status.h"

typedef struct cls_tiff_decoder cls_tiff_decoder;

/// Reads the first directory of the TIFF in `data` (which must stay valid until close).
/// Images over `maximum_pixel_count` fail with CLS_TOO_LARGE. `minimum_short_side` > 0 reduces
/// the output by the largest of 8, 4, 2 that keeps its short side at least that long (block
/// means, cls_row_reduction.h); 0 decodes at full size. info.output_width/height give the size.
cls_status cls_tiff_decoder_open(const uint8_t *data, size_t size, uint64_t maximum_pixel_count,
                                 uint32_t minimum_short_side, cls_tiff_decoder **decoder, cls_image_info *info,
                                 cls_message *message);

/// Decodes into interleaved 8-bit RGB rows of output_width * 3 bytes, a band of strips or tiles
/// at a time (the full-size picture is never held). Call at most once.
cls_status cls_tiff_decoder_read_pixels(cls_tiff_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message);

/// Releases the decoder; NULL is allowed.
/// Writes only `crop` (a rectangle of the reduced output, stored orientation) in read_pixels;
/// `info`'s output size becomes the crop's. Call after open, before read_pixels.
cls_status cls_tiff_decoder_crop(cls_tiff_decoder *decoder, cls_output_crop crop, cls_image_info *info,
                                 cls_message *message);

void cls_tiff_decoder_close(cls_tiff_decoder *decoder);

#endif
