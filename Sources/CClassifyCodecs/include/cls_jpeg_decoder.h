// JPEG decoding through libjpeg(-turbo), in two steps so the caller can check the header
// (and allocate the output itself) before any large allocation happens:
//
//   cls_jpeg_decoder *decoder; cls_jpeg_header header; cls_message message;
//   if (cls_jpeg_decoder_open(data, size, 256, 100000000, &decoder, &header, &message) == CLS_OK) {
//       uint8_t *rgb = malloc(header.output_width * header.output_height * 3);
//       cls_jpeg_decoder_read_pixels(decoder, rgb, header.output_width * header.output_height * 3, &message);
//   }
//   cls_jpeg_decoder_close(decoder);
#ifndef CLS_JPEG_DECODER_H
#define CLS_JPEG_DECODER_H

#include "cls_output_crop.h"
#include "cls_status.h"

/// Progressive files with more scans than this are rejected: each scan re-walks the whole
/// coefficient buffer, so a hostile file with thousands of tiny scans could run for minutes.
enum { CLS_JPEG_MAXIMUM_SCAN_COUNT = 1000 };

typedef struct cls_jpeg_decoder cls_jpeg_decoder;

typedef struct cls_jpeg_header {
    /// Full-size dimensions from the frame header (also filled in for CLS_TOO_LARGE).
    uint32_t image_width;
    uint32_t image_height;
    /// Dimensions cls_jpeg_decoder_read_pixels will produce after DCT-domain scaling.
    uint32_t output_width;
    uint32_t output_height;
    /// The chosen scale is 1/scale_denominator: 1, 2, 4 or 8.
    uint32_t scale_denominator;
    /// TIFF-structured EXIF payload of the first APP1 "Exif\0\0" segment (prefix removed),
    /// or NULL. Owned by the decoder; valid only until read_pixels or close is called.
    const uint8_t *exif;
    size_t exif_size;
    /// The XMP packet of the first APP1 "http://ns.adobe.com/xap/1.0/\0" segment (prefix
    /// removed), or NULL; owned and valid like `exif`.
    const uint8_t *xmp;
    size_t xmp_size;
} cls_jpeg_header;

/// Reads the header of the JPEG in `data` (which must stay valid until close).
///
/// `minimum_short_side`: 0 decodes at full size; otherwise the smallest scale among 1/8, 1/4,
/// 1/2 and 1 whose output short side is still >= the minimum is chosen (1 when none is).
/// `maximum_pixel_count`: images with more full-size pixels fail with CLS_TOO_LARGE.
/// Our own Huffman decoder reads sequential scans (same pixels, libjpeg's verdict on damaged
/// data); the environment variable CLASSIFY_JPEG_HUFFMAN=libjpeg leaves every scan to libjpeg.
/// On success `*decoder` must be closed; on failure it is NULL.
cls_status cls_jpeg_decoder_open(const uint8_t *data, size_t size, uint32_t minimum_short_side,
                                 uint64_t maximum_pixel_count, cls_jpeg_decoder **decoder,
                                 cls_jpeg_header *header, cls_message *message);

/// Decodes only the rectangle `crop` of the output (after scaling,
/// in stored orientation); `header`'s output size becomes the rectangle's. Call after open and
/// before read_pixels. Rows above the rectangle are skipped, rows below it are not decoded,
/// and only the columns of the iMCUs that hold it are transformed.
cls_status cls_jpeg_decoder_crop(cls_jpeg_decoder *decoder, cls_output_crop crop, cls_jpeg_header *header,
                                 cls_message *message);

/// Decodes the image as interleaved 8-bit RGB rows of output_width * 3 bytes into `rgb`,
/// which holds `capacity` bytes. Grayscale is replicated to RGB; CMYK and YCCK are converted.
/// Call at most once per decoder.
cls_status cls_jpeg_decoder_read_pixels(cls_jpeg_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message);

/// Decodes with libjpeg's own Huffman decoder even where ours would be used: for
/// tests that compare the two and for measurements. Call before read_pixels.
///
///   cls_jpeg_decoder_use_library_huffman(decoder);
void cls_jpeg_decoder_use_library_huffman(cls_jpeg_decoder *decoder);

/// Our Huffman decoder without its BMI2 loop even where the CPU has BMI2: for tests that compare
/// the two loops. Call before read_pixels.
///
///   cls_jpeg_decoder_use_baseline_huffman(decoder);
void cls_jpeg_decoder_use_baseline_huffman(cls_jpeg_decoder *decoder);

/// 1 when read_pixels decoded the scan with our Huffman decoder, 0 when libjpeg did (a file ours
/// does not take, such as a progressive one, or one it left to libjpeg); for tests.
///
///   int ours = cls_jpeg_decoder_huffman_was_ours(decoder);
int cls_jpeg_decoder_huffman_was_ours(const cls_jpeg_decoder *decoder);

/// Releases the decoder; NULL is allowed.
void cls_jpeg_decoder_close(cls_jpeg_decoder *decoder);

#endif
