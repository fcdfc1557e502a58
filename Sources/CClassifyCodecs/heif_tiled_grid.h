// A HEIF or AVIF grid picture (ISO/IEC 23008-12 'grid' item: every iPhone HEIC, and every HEIC or
// AVIF larger than its codec's levels allow in one picture, 35.6 MP) decoded one tile at a time.
// libheif 1.15 decodes a grid whole, holding about 5 bytes per pixel of the whole picture (a
// 60-MP photo: ~260 MB); here each tile is handed to libheif alone, as a one-item file made of the
// tile's own properties and coded bytes, and a row of tiles at a time is reduced into the output,
// so what is held is one tile's decode and one band of tile rows, whatever the picture's size.
// The grid's irot and imir come back as an EXIF orientation, applied with the other formats'.
//
//   heif_tiled_grid grid;
//   if (heif_tiled_grid_plan(&items, CLS_HEIF_HEVC, &grid)) {  // items: heif_items_read

//       status = heif_tiled_grid_decode(&grid, factor, crop, 2, rgb, &message);
//       heif_tiled_grid_free(&grid);
//   }
#ifndef CLS_HEIF_TILED_GRID_H
#define CLS_HEIF_TILED_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "cls_heif_decoder.h"
#include "cls_output_crop.h"
#include "cls_status.h"
#include "heif_items.h"

typedef struct heif_grid_tile {
    uint32_t first_property;
    uint32_t property_count;
    uint32_t first_extent;
    uint32_t extent_count;
} heif_grid_tile;

/// Where a grid's tiles, their properties and their coded bytes lie in the file (which must
/// outlive the plan).
typedef struct heif_tiled_grid {
    cls_heif_coding coding;
    uint32_t columns;
    uint32_t rows;
    uint32_t tile_width;
    uint32_t tile_height;
    /// The grid's output size, before irot and imir.
    uint32_t width;
    uint32_t height;
    /// The grid's irot and imir, in their order, as an EXIF orientation (1...8).
    uint32_t orientation;
    /// Per tile, in raster order: its first property and extent and how many of each.
    heif_grid_tile *tiles;
    heif_property *properties;
    heif_extent *extents;
    uint32_t property_count;
    uint32_t extent_count;
} heif_tiled_grid;

/// 1 and a plan when the primary image of `data` is a grid of `coding` tiles that this path
/// decodes exactly as libheif would: tiles of one size covering the output, items stored in the
/// file or its idat, no transformation but irot and imir (a clean aperture is left to libheif).
/// 0 otherwise (also for damaged boxes), and the caller decodes the picture whole.
/// (heif_grid_plan.c)
int heif_tiled_grid_plan(const heif_items *items, cls_heif_coding coding, heif_tiled_grid *grid);

/// At most this many tiles of a row are decoded at once.
#define HEIF_TILE_THREADS 4

/// Decodes the grid into `rgb`: the picture reduced by `factor` (1, 2, 4, 8; cls_row_reduction.h),
/// in stored orientation, only `crop` of it when its width is not 0, the tiles of each row on up
/// to `threads` threads (at most HEIF_TILE_THREADS). Tiles no output pixel needs are not decoded.
cls_status heif_tiled_grid_decode(const heif_tiled_grid *grid, uint32_t factor, cls_output_crop crop, int threads,
                                  uint8_t *rgb, cls_message *message);

/// Pixels held at once while decoding on `threads` threads: a tile per thread and one band of
/// tile rows.
uint64_t heif_tiled_grid_pixels_held(const heif_tiled_grid *grid, int threads);

/// Releases the plan's arrays (a zeroed plan too).
void heif_tiled_grid_free(heif_tiled_grid *grid);

#endif
