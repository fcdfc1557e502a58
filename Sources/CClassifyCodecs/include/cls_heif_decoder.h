// HEIF (HEIC) and AVIF decoding through libheif: the primary image, with the file's
// transformations (irot rotation, imir mirror, clap clean aperture) applied, grids assembled,
// 10- and 12-bit samples reduced to 8, and alpha composited onto white.
//
//   cls_heif_decoder *decoder; cls_image_info info; cls_message message;
//   if (cls_heif_decoder_open(data, size, CLS_HEIF_HEVC, 100000000, 0, 256, CLS_HEIF_GRIDS_TILE_BY_TILE, &decoder, &info, &message) == CLS_OK) {
//       uint8_t *rgb = malloc(info.output_width * info.output_height * 3);
//       cls_heif_decoder_read_pixels(decoder, rgb, info.output_width * info.output_height * 3, &message);
//   }
//   cls_heif_decoder_close(decoder);
//
// libheif reports errors as return values (no setjmp), but it lives here beside the other
// codecs so every format follows the same status/message convention.
#ifndef CLS_HEIF_DECODER_H
#define CLS_HEIF_DECODER_H

#include <stddef.h>

#include "cls_image_info.h"
#include "cls_row_reduction.h"
#include "cls_status.h"

/// The coding the file's brand announces; decides which decoder libheif must have.
typedef enum cls_heif_coding {
    CLS_HEIF_HEVC = 0,
    CLS_HEIF_AV1 = 1,
} cls_heif_coding;

typedef struct cls_heif_decoder cls_heif_decoder;

/// 1 when this libheif has a decoder for `coding` (libde265 for HEVC, dav1d or libaom for AV1).
int cls_heif_has_decoder(cls_heif_coding coding);

/// Lets the tiles of a grid picture (every iPhone HEIC) be decoded on up to `threads` threads, a
/// row of tiles at a time (the decoder starts with one; at most 4 tile by tile). Call before
/// cls_heif_decoder_pixels_held and cls_heif_decoder_read_pixels.
void cls_heif_decoder_set_threads(cls_heif_decoder *decoder, int threads);

/// How a grid picture (ISO/IEC 23008-12 'grid' item, as phones store photos) is decoded.
typedef enum cls_heif_grids {
    /// One tile at a time, each handed to libheif alone, reduced a band of tile rows at a time:
    /// what is held is one tile and one band, whatever the picture's size. Grids with a clean
    /// aperture, alpha or tiles that are not all alike still go whole. The pixels are libheif's.
    CLS_HEIF_GRIDS_TILE_BY_TILE = 0,
    /// The whole picture through libheif (which holds all of it): the reference for the above.
    CLS_HEIF_GRIDS_WHOLE = 1,
} cls_heif_grids;

/// Parses the file in `data` (which must stay valid until close) and picks the primary image.
/// Its size after transformations over `maximum_pixel_count` fails with CLS_TOO_LARGE; a
/// missing decoder for `coding` with CLS_DECODER_MISSING. `thumbnail_minimum_short_side` > 0 picks
/// the file's embedded thumbnail instead when its shorter side is at least that long (0:
/// always the primary image). `minimum_short_side` > 0 reduces the output by the largest of 8,
/// 4, 2 that keeps its short side at least that long (block means, cls_row_reduction.h; libheif
/// still decodes the whole picture, or tile, but no full-size copy is made); 0: full size.
/// info.orientation is 1 when libheif applies the transforms; a grid decoded tile by tile
/// reports its stored size and its irot and imir as info.orientation instead.
cls_status cls_heif_decoder_open(const uint8_t *data, size_t size, cls_heif_coding coding,
                                 uint64_t maximum_pixel_count,
                                 uint32_t thumbnail_minimum_short_side, uint32_t minimum_short_side,
                                 cls_heif_grids grids, cls_heif_decoder **decoder, cls_image_info *info,
                                 cls_message *message);

/// Pixels the decode will hold at once: the whole picture, or a tile per thread and one band of
/// tile rows of a grid decoded tile by tile. Usage: reserve this times the codec's bytes per pixel.
uint64_t cls_heif_decoder_pixels_held(const cls_heif_decoder *decoder);

/// The metadata blocks a HEIF file can attach to its primary image (ISO/IEC 23008-12 items
/// linked by a 'cdsc' reference).
typedef enum cls_heif_metadata {
    /// The "Exif" item: a 4-byte big-endian offset to the TIFF header, then the EXIF bytes.
    CLS_HEIF_METADATA_EXIF = 0,
    /// A "mime" item of content type application/rdf+xml: the XMP packet.
    CLS_HEIF_METADATA_XMP = 1,
} cls_heif_metadata;

/// The size in bytes of the primary image's first metadata block of `kind`, 0 when it has none.
size_t cls_heif_decoder_metadata_size(cls_heif_decoder *decoder, cls_heif_metadata kind);

/// Copies that block into `buffer`, whose `capacity` must be at least its size.
cls_status cls_heif_decoder_copy_metadata(cls_heif_decoder *decoder, cls_heif_metadata kind, uint8_t *buffer,
                                          size_t capacity, cls_message *message);

/// Decodes into interleaved 8-bit RGB rows of output_width * 3 bytes. Call at most once.
cls_status cls_heif_decoder_read_pixels(cls_heif_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message);

/// Releases the decoder; NULL is allowed.
/// Writes only `crop` (a rectangle of the reduced output, stored orientation) in read_pixels;
/// `info`'s output size becomes the crop's. Call after open, before read_pixels.
cls_status cls_heif_decoder_crop(cls_heif_decoder *decoder, cls_output_crop crop, cls_image_info *info,
                                 cls_message *message);

void cls_heif_decoder_close(cls_heif_decoder *decoder);

#endif
