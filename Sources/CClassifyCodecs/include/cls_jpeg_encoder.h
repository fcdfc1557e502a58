// JPEG encoding through libjpeg(-turbo), for images the project serves (thumbnails, previews):
//
//   uint8_t *bytes; size_t size; cls_message message;
//   if (cls_jpeg_encode_rgb(rgb, width, height, 82, &bytes, &size, &message) == CLS_OK) {
//       fwrite(bytes, 1, size, file);
//       cls_jpeg_free(bytes);
//   }
#ifndef CLS_JPEG_ENCODER_H
#define CLS_JPEG_ENCODER_H

#include "cls_status.h"

/// Compresses `height` rows of `width` interleaved 8-bit RGB pixels (width * 3 bytes per row, no
/// padding) as a baseline JFIF JPEG: `quality` 1...100, 4:2:0 chroma subsampling, Huffman tables
/// optimized for the image (a few percent smaller, same pixels). On success `*bytes` holds
/// `*size` bytes that the caller releases with cls_jpeg_free; on failure it is NULL.
cls_status cls_jpeg_encode_rgb(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                               uint8_t **bytes, size_t *size, cls_message *message);

/// Releases bytes returned by cls_jpeg_encode_rgb; NULL is allowed.
void cls_jpeg_free(void *bytes);

#endif
