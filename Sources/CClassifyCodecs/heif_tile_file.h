// One tile of a grid written as a HEIF or AVIF file of its own, for libheif to decode alone: its
// primary and only item is the tile, with the tile's own properties (coding configuration, size,
// colour) and coded bytes, as libheif reads it inside the grid.
//
//   heif_tile_writer file = {0};
//   if (heif_write_tile_file(&grid, 0, &file)) heif_context_read_from_memory_without_copy(context, file.bytes, file.size, NULL);
//   free(file.bytes);
#ifndef CLS_HEIF_TILE_FILE_H
#define CLS_HEIF_TILE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "heif_tiled_grid.h"

/// A growing byte buffer, reused from tile to tile; `failed` is set when memory runs out.
typedef struct heif_tile_writer {
    uint8_t *bytes;
    size_t size;
    size_t capacity;
    int failed;
} heif_tile_writer;

/// Writes tile `index` as a HEIF file whose primary and only item is the tile, with its own
/// properties (coding configuration, size, colour) and coded bytes, as libheif reads it inside
/// the grid. 0 when memory runs out or the tile is too large for 32-bit offsets.
int heif_write_tile_file(const heif_tiled_grid *grid, uint32_t index, heif_tile_writer *w);

#endif
