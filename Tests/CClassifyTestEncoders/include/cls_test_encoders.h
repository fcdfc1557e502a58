// Encoders used by the test suite to generate JPEG, PNG and TIFF files on the fly, so no binary
// fixtures are needed. Not meant for production use: they favour coverage of odd variants
// (CMYK, YCCK, thousands of scans, 16-bit, palettes) over speed.
//
//   cls_test_jpeg_options options = {.width = 64, .height = 32, .components = 3, .quality = 95};
//   uint8_t *bytes; size_t size; cls_message message;
//   if (cls_test_encode_jpeg(&options, rgb, &bytes, &size, &message) == CLS_OK) cls_test_free(bytes);
#ifndef CLS_TEST_ENCODERS_H
#define CLS_TEST_ENCODERS_H

#include "cls_status.h"

typedef enum cls_test_jpeg_scans {
    CLS_TEST_JPEG_BASELINE = 0,
    /// libjpeg's standard progressive script.
    CLS_TEST_JPEG_PROGRESSIVE = 1,
    /// A valid progressive script with one scan per coefficient and bit plane: more than
    /// 2000 scans for 3 or 4 components. Exists to test the decoder's scan limit.
    CLS_TEST_JPEG_EXCESSIVE_SCANS = 2,
} cls_test_jpeg_scans;

typedef enum cls_test_jpeg_ink {
    /// CMYK with an Adobe APP14 marker; samples are stored inverted (255 = no ink) as
    /// Adobe applications do.
    CLS_TEST_JPEG_INK_ADOBE_CMYK = 0,
    /// CMYK without an Adobe marker; samples are plain ink amounts (255 = full ink).
    CLS_TEST_JPEG_INK_PLAIN_CMYK = 1,
    /// YCCK with an Adobe marker; samples are inverted CMYK as for ADOBE_CMYK.
    CLS_TEST_JPEG_INK_ADOBE_YCCK = 2,
} cls_test_jpeg_ink;

typedef struct cls_test_jpeg_options {
    uint32_t width;
    uint32_t height;
    /// 1 = grayscale, 3 = RGB, 4 = CMYK (interleaved samples of this many channels).
    int components;
    /// 1...100.
    int quality;
    cls_test_jpeg_scans scans;
    /// Only for components == 4.
    cls_test_jpeg_ink ink;
    /// Written verbatim as one APP1 segment when app1_size > 0 (at most 65533 bytes).
    const uint8_t *app1;
    size_t app1_size;
    /// The first component's sampling factors (the others' are 1): 2 x 2 is 4:2:0, 2 x 1 4:2:2,
    /// 1 x 2 4:4:0, 1 x 1 4:4:4. 0 keeps libjpeg's default.
    int luma_h_sampling;
    int luma_v_sampling;
    /// MCUs per restart interval; 0 writes no restart markers.
    unsigned int restart_interval;
    /// Nonzero: Huffman tables made for the image instead of the standard ones.
    int optimize_coding;
} cls_test_jpeg_options;

/// Compresses `pixels` with libjpeg. On success `*bytes` holds `*size` bytes that the caller
/// releases with cls_test_free.
cls_status cls_test_encode_jpeg(const cls_test_jpeg_options *options, const uint8_t *pixels,
                                uint8_t **bytes, size_t *size, cls_message *message);

/// Values are PNG's colour type numbers.
typedef enum cls_test_png_color {
    CLS_TEST_PNG_GRAY = 0,
    CLS_TEST_PNG_RGB = 2,
    CLS_TEST_PNG_PALETTE = 3,
    CLS_TEST_PNG_GRAY_ALPHA = 4,
    CLS_TEST_PNG_RGBA = 6,
} cls_test_png_color;

typedef struct cls_test_png_options {
    uint32_t width;
    uint32_t height;
    cls_test_png_color color;
    /// 8 or 16 (palette images: 8).
    int bit_depth;
    /// Non-zero writes Adam7 interlacing.
    int interlaced;
    /// palette_count RGB triples, for CLS_TEST_PNG_PALETTE.
    const uint8_t *palette_rgb;
    int palette_count;
    /// Optional tRNS alpha per palette entry.
    const uint8_t *palette_alpha;
    int palette_alpha_count;
    /// Non-zero writes an sRGB chunk (with its gAMA and cHRM companions) before the image data.
    int srgb_chunk;
    /// Optional eXIf chunk payload (TIFF structure).
    const uint8_t *exif;
    size_t exif_size;
} cls_test_png_options;

/// Writes a PNG with libpng. `samples` holds width * height * channels values (channels from
/// the colour type; palette indices for palette images), each below 2^bit_depth.
/// On success `*bytes` holds `*size` bytes that the caller releases with cls_test_free.
cls_status cls_test_encode_png(const cls_test_png_options *options, const uint16_t *samples,
                               uint8_t **bytes, size_t *size, cls_message *message);

/// Writes a `width` x `height` 8-bit RGB PNG of a synthetic picture (gradients and a 7-px
/// checker) to `path`, row by row, so a 60-megapixel file costs the writer one row of memory.
cls_status cls_test_write_large_png(const char *path, uint32_t width, uint32_t height, cls_message *message);

/// The same picture as an 8-bit RGB deflate TIFF: strips of 64 rows when `tile_size`
/// is 0, tiles of `tile_size` (a multiple of 16) otherwise; one band of rows in memory.
cls_status cls_test_write_large_tiff(const char *path, uint32_t width, uint32_t height, uint32_t tile_size,
                                     cls_message *message);

/// Writes `rgb` (width * height RGB pixels, stored order) as a deflate TIFF to `path`: strips of
/// `rows_per_strip` rows, or tiles of `tile_size` (a multiple of 16) when it is not 0, with the
/// Orientation tag `orientation` (1...8).
cls_status cls_test_encode_tiff(const uint8_t *rgb, uint32_t width, uint32_t height, uint32_t rows_per_strip,
                                uint32_t tile_size, uint16_t orientation, const char *path, cls_message *message);

/// Releases bytes returned by the encoders above.
void cls_test_free(void *bytes);

#endif
