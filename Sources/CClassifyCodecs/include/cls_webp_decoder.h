// WebP decoding through libwebp: lossy, lossless and alpha (composited onto white), scaled by
// libwebp's own rescaler while decoding when the caller needs fewer pixels; an animated WebP
// gives its first frame (through libwebpdemux's animation decoder).
//
//   cls_webp_decoder *decoder; cls_image_info info; cls_message message;
//   if (cls_webp_decoder_open(data, size, 256, 100000000, &decoder, &info, &message) == CLS_OK) {
//       uint8_t *rgb = malloc(info.output_width * info.output_height * 3);
//       cls_webp_decoder_read_pixels(decoder, rgb, info.output_width * info.output_height * 3, &message);
//   }
//   cls_webp_decoder_close(decoder);
#ifndef CLS_WEBP_DECODER_H
#define CLS_WEBP_DECODER_H

#include "cls_image_info.h"
#include "cls_status.h"

typedef struct cls_webp_decoder cls_webp_decoder;

/// Reads the WebP header in `data` (which must stay valid until close).
/// `minimum_short_side`: 0 decodes at full size; otherwise a still image is scaled to the
/// smallest of 1/8, 1/4, 1/2 and full size whose short side is still >= the minimum, as the
/// JPEG decoder chooses its DCT scale. Canvases over `maximum_pixel_count` fail with
/// CLS_TOO_LARGE. info.orientation is 1 (Swift reads the EXIF chunk).
cls_status cls_webp_decoder_open(const uint8_t *data, size_t size, uint32_t minimum_short_side,
                                 uint64_t maximum_pixel_count, cls_webp_decoder **decoder,
                                 cls_image_info *info, cls_message *message);

/// Decodes into interleaved 8-bit RGB rows of output_width * 3 bytes. Call at most once.
cls_status cls_webp_decoder_read_pixels(cls_webp_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message);

/// Releases the decoder; NULL is allowed.
void cls_webp_decoder_close(cls_webp_decoder *decoder);

#endif
