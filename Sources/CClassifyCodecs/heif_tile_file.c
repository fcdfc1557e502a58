#include "heif_tile_file.h"

#include <stdlib.h>
#include <string.h>

#include "heif_boxes.h"

static void put(heif_tile_writer *w, const void *bytes, size_t n) {
    if (w->failed) return;
    if (w->size + n > w->capacity) {
        size_t grown = w->capacity ? w->capacity : 4096;
        while (grown < w->size + n) grown *= 2;
        uint8_t *bigger = realloc(w->bytes, grown);
        if (bigger == NULL) {
            w->failed = 1;
            return;
        }
        w->bytes = bigger;
        w->capacity = grown;
    }
    memcpy(w->bytes + w->size, bytes, n);
    w->size += n;
}

static void put_number(heif_tile_writer *w, uint32_t value, size_t n) {
    uint8_t bytes[4];
    for (size_t i = 0; i < n; i++) bytes[i] = (uint8_t)(value >> (8 * (n - 1 - i)));
    put(w, bytes, n);
}

/// Starts a box (a full box with `version` >= 0); returns where its size goes, for end_box.
static size_t begin_box(heif_tile_writer *w, uint32_t type, int version) {
    const size_t start = w->size;
    put_number(w, 0, 4);
    put_number(w, type, 4);
    if (version >= 0) put_number(w, (uint32_t)version << 24, 4);
    return start;
}

static void end_box(heif_tile_writer *w, size_t start) {
    if (w->failed) return;
    const size_t size = w->size - start;
    for (size_t i = 0; i < 4; i++) w->bytes[start + i] = (uint8_t)(size >> (8 * (3 - i)));
}

int heif_write_tile_file(const heif_tiled_grid *grid, uint32_t index, heif_tile_writer *w) {
    const heif_grid_tile *tile = &grid->tiles[index];
    const int av1 = grid->coding == CLS_HEIF_AV1;
    uint64_t coded = 0;
    for (uint32_t e = 0; e < tile->extent_count; e++) coded += grid->extents[tile->first_extent + e].size;
    if (coded > UINT32_MAX / 2) return 0;
    w->size = 0;
    w->failed = 0;

    size_t box = begin_box(w, HEIF_FOURCC('f', 't', 'y', 'p'), -1);
    put_number(w, av1 ? HEIF_FOURCC('a', 'v', 'i', 'f') : HEIF_FOURCC('h', 'e', 'i', 'c'), 4);
    put_number(w, 0, 4);
    put_number(w, HEIF_FOURCC('m', 'i', 'f', '1'), 4);
    put_number(w, av1 ? HEIF_FOURCC('a', 'v', 'i', 'f') : HEIF_FOURCC('h', 'e', 'i', 'c'), 4);
    end_box(w, box);

    const size_t meta = begin_box(w, HEIF_FOURCC('m', 'e', 't', 'a'), 0);
    box = begin_box(w, HEIF_FOURCC('h', 'd', 'l', 'r'), 0);
    put_number(w, 0, 4);
    put_number(w, HEIF_FOURCC('p', 'i', 'c', 't'), 4);
    for (int i = 0; i < 3; i++) put_number(w, 0, 4);
    put_number(w, 0, 1);  // an empty name
    end_box(w, box);
    box = begin_box(w, HEIF_FOURCC('p', 'i', 't', 'm'), 0);
    put_number(w, 1, 2);
    end_box(w, box);
    // iloc version 0: 4-byte offsets and lengths, no base offset; one item, one extent. The
    // offset is patched once the meta box's size is known.
    box = begin_box(w, HEIF_FOURCC('i', 'l', 'o', 'c'), 0);
    put_number(w, 0x4400, 2);
    put_number(w, 1, 2);
    put_number(w, 1, 2);  // item 1
    put_number(w, 0, 2);  // this file
    put_number(w, 1, 2);  // one extent
    const size_t offset_at = w->size;
    put_number(w, 0, 4);
    put_number(w, (uint32_t)coded, 4);
    end_box(w, box);
    box = begin_box(w, HEIF_FOURCC('i', 'i', 'n', 'f'), 0);
    put_number(w, 1, 2);
    const size_t infe = begin_box(w, HEIF_FOURCC('i', 'n', 'f', 'e'), 2);
    put_number(w, 1, 2);
    put_number(w, 0, 2);
    put_number(w, av1 ? HEIF_FOURCC('a', 'v', '0', '1') : HEIF_FOURCC('h', 'v', 'c', '1'), 4);
    put_number(w, 0, 1);
    end_box(w, infe);
    end_box(w, box);
    box = begin_box(w, HEIF_FOURCC('i', 'p', 'r', 'p'), -1);
    const size_t ipco = begin_box(w, HEIF_FOURCC('i', 'p', 'c', 'o'), -1);
    for (uint32_t p = 0; p < tile->property_count; p++) {
        const heif_property *property = &grid->properties[tile->first_property + p];
        put(w, property->box, property->size);
    }
    end_box(w, ipco);
    const size_t ipma = begin_box(w, HEIF_FOURCC('i', 'p', 'm', 'a'), 0);  // 1-byte indices: at most 32
    put_number(w, 1, 4);
    put_number(w, 1, 2);
    put_number(w, tile->property_count, 1);
    for (uint32_t p = 0; p < tile->property_count; p++) {
        put_number(w, (grid->properties[tile->first_property + p].essential ? 0x80 : 0) | (p + 1), 1);
    }
    end_box(w, ipma);
    end_box(w, box);
    end_box(w, meta);

    const size_t mdat = begin_box(w, HEIF_FOURCC('m', 'd', 'a', 't'), -1);
    const size_t data_start = w->size;
    for (uint32_t e = 0; e < tile->extent_count; e++) {
        const heif_extent *extent = &grid->extents[tile->first_extent + e];
        put(w, extent->at, extent->size);
    }
    end_box(w, mdat);
    if (w->failed) return 0;
    for (size_t i = 0; i < 4; i++) w->bytes[offset_at + i] = (uint8_t)(data_start >> (8 * (3 - i)));
    return 1;
}
