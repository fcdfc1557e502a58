// PNG decoding through libpng's simplified API, in two steps so the caller can check the
// dimensions and allocate the output itself before any large allocation happens:
//
//   cls_png_decoder *decoder; cls_png_header header; cls_message message;
//   if (cls_png_decoder_open(data, size, 100000000, 256, &decoder, &header, &message) == CLS_OK) {
//       uint8_t *rgb = malloc(header.output_width * header.output_height * 3);
//       cls_png_decoder_read_pixels(decoder, rgb, header.output_width * header.output_height * 3, &message);
//   }
//   cls_png_decoder_close(decoder);
//
// The simplified API catches libpng's longjmps internally and reports errors in
// png_image.message, so no jump ever reaches our code or Swift.
#ifndef CLS_PNG_DECODER_H
#define CLS_PNG_DECODER_H

#include "cls_row_reduction.h"
#include "cls_status.h"

typedef struct cls_png_decoder cls_png_decoder;

typedef struct cls_png_header {
    /// Dimensions from IHDR (also filled in for CLS_TOO_LARGE).
    uint32_t width;
    uint32_t height;
    /// Dimensions read_pixels writes: width and height reduced by scale_denominator (rounded up).
    uint32_t output_width;
    uint32_t output_height;
    /// 1, 2, 4 or 8.
    uint32_t scale_denominator;
} cls_png_header;

/// Reads the PNG header and the chunks before the image data from `data`, which must stay
/// valid until close. Images with more than `maximum_pixel_count` pixels fail with
/// CLS_TOO_LARGE. `minimum_short_side` > 0 reduces the output by the largest of 8, 4, 2 that
/// keeps its short side at least that long (block means, cls_row_reduction.h); 0: full size.
/// On success `*decoder` must be closed; on failure it is NULL.
cls_status cls_png_decoder_open(const uint8_t *data, size_t size, uint64_t maximum_pixel_count,
                                uint32_t minimum_short_side, cls_png_decoder **decoder, cls_png_header *header,
                                cls_message *message);

/// Decodes to interleaved 8-bit sRGB rows of output_width * 3 bytes into `rgb` (`capacity`
/// bytes). Non-interlaced files of at most 8 bits without alpha or tRNS (most photos) are read
/// row by row and never held at full size; the others are decoded whole, then reduced.
/// Transparency is composited onto white (#FFFFFF), blending in linear light as libpng does.
/// 16-bit files without gamma information are taken to be sRGB-encoded (as browsers do),
/// not linear; they pass through 16-bit linear light, so their darkest 8-bit levels (below
/// about 3) become 0. Call at most once per decoder.
cls_status cls_png_decoder_read_pixels(cls_png_decoder *decoder, uint8_t *rgb, size_t capacity,
                                       cls_message *message);

/// Writes only `crop` (a rectangle of the reduced output, stored orientation) in read_pixels;
/// `header`'s output size becomes the crop's. Call after open, before read_pixels.
cls_status cls_png_decoder_crop(cls_png_decoder *decoder, cls_output_crop crop, cls_png_header *header,
                                cls_message *message);

/// Releases the decoder; NULL is allowed.
void cls_png_decoder_close(cls_png_decoder *decoder);

#endif
