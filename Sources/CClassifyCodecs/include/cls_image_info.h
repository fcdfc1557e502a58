// What the decoders of the newer formats (HEIF/AVIF, WebP, TIFF, GIF) report after reading a
// header, so Swift can check the size and allocate the output before any pixel is decoded.
#ifndef CLS_IMAGE_INFO_H
#define CLS_IMAGE_INFO_H

#include <stdint.h>

typedef struct cls_image_info {
    /// Full-size dimensions as stored, before orientation (also filled in for CLS_TOO_LARGE).
    uint32_t width;
    uint32_t height;
    /// Dimensions read_pixels writes (smaller than width x height when the codec scales).
    uint32_t output_width;
    uint32_t output_height;
    /// EXIF-style orientation 1...8 that Swift still has to apply to the output (1: none).
    uint32_t orientation;
} cls_image_info;

#endif
