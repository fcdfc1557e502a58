// GIF decoding through giflib: the first frame, placed on the logical screen, with transparent
// pixels (and the screen outside the frame) shown as white, like a transparent PNG. Only the
// records up to the first image are read, so a long animation costs no more than one frame.
//
//   cls_gif_decoder *decoder; cls_image_info info; cls_message message;
//   if (cls_gif_decoder_open(data, size, 100000000, &decoder, &info, &message) == CLS_OK) {
//       uint8_t *rgb = malloc(info.output_width * info.output_height * 3);
//       cls_gif_decoder_read_pixels(decoder, rgb, info.output_width * info.output_height * 3, &message);
//   }
//   cls_gif_decoder_close(decoder);
#ifndef CLS_GIF_DECODER_H
#define CLS_GIF_DECODER_H

#include "cls_image_info.h"
#include "cls_status.h"

typedef struct cls_gif_decoder cls_gif_decoder;

/// Reads the GIF's screen descriptor from `data` (which must stay valid until close).
/// Screens over `maximum_pixel_count` fail with CLS_TOO_LARGE.
cls_status cls_gif_decoder_open(const uint8_t *data, size_t size, uint64_t maximum_pixel_count,
                                cls_gif_decoder **decoder, cls_image_info *info, cls_message *message);

/// Decodes the first frame into interleaved 8-bit RGB rows of output_width * 3 bytes.
/// Call at most once.
cls_status cls_gif_decoder_read_pixels(cls_gif_decoder *decoder, uint8_t *rgb, size_t capacity,
                                       cls_message *message);

/// Releases the decoder; NULL is allowed.
void cls_gif_decoder_close(cls_gif_decoder *decoder);

#endif
