// One libheif image decoded to 8-bit RGB, the way both HEIF paths ask for it: the whole picture
// (cls_heif_decoder_read_pixels) and each tile of a grid decoded tile by tile (heif_tiled_grid.h).
//
//   heif_rgb picture;
//   if (heif_rgb_decode(handle, CLS_HEIF_HEVC, &picture, &message) == CLS_OK) {
//       const uint8_t *row = heif_rgb_row(&picture, y, scratch);  // width * 3 (or 4) bytes
//       heif_rgb_release(&picture);
//   }
#ifndef CLS_HEIF_RGB_H
#define CLS_HEIF_RGB_H

#include <stdint.h>
#include <libheif/heif.h>

#include "cls_heif_decoder.h"
#include "cls_status.h"

/// A decoded picture's rows, whichever layout libheif delivered.
typedef struct heif_rgb {
    struct heif_image *image;
    uint32_t width;
    uint32_t height;
    int has_alpha;
    /// Interleaved RGB or RGBA (`interleaved`), or the planes R, G, B (and alpha).
    const uint8_t *planes[4];
    int strides[4];
    int interleaved;
} heif_rgb;

/// Decodes `handle` (alpha included when it has one) to 8 bits per sample, with dav1d held to
/// one thread for AV1. Fails with CLS_CORRUPT when libheif's picture is not the size the handle
/// announced.
cls_status heif_rgb_decode(const struct heif_image_handle *handle, cls_heif_coding coding, heif_rgb *picture,
                           cls_message *message);

/// Row `y` as interleaved RGB (RGBA with alpha): libheif's own row when interleaved, else the
/// planes interleaved into `scratch` (width * 4 bytes).
const uint8_t *heif_rgb_row(const heif_rgb *picture, uint32_t y, uint8_t *scratch);

/// Releases the picture (a zeroed one too).
void heif_rgb_release(heif_rgb *picture);

/// libheif's error as our status and message.
cls_status heif_rgb_failure(struct heif_error error, cls_message *message);

#endif
