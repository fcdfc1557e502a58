#include "heif_grid_check.h"

#include <stdlib.h>

#include "heif_items.h"

// The size an item's first `ispe` property gives it; 0 when it has none (or the boxes are damaged).
static int item_extent(const heif_items *items, uint32_t item, uint32_t *width, uint32_t *height) {
    heif_property properties[255];  // ipma counts an item's associations in one byte
    const uint32_t count = heif_item_properties(items, item, properties, 255);
    for (uint32_t p = 0; p < count; p++) {
        if (heif_property_type(&properties[p]) != HEIF_FOURCC('i', 's', 'p', 'e')) continue;
        span payload = heif_property_payload(&properties[p]);
        heif_skip(&payload, 4);
        *width = heif_read(&payload, 4);
        *height = heif_read(&payload, 4);
        return !payload.bad;
    }
    return 0;
}

// Whether every tile `dimg` names for `grid` has an ispe, all of one size.
static int grid_tiles_agree(const heif_items *items, uint32_t grid) {
    const uint32_t dimg = HEIF_FOURCC('d', 'i', 'm', 'g');
    const uint32_t count = heif_item_references(items, dimg, grid, NULL, 0);
    if (count == 0) return 1;
    uint32_t *tiles = malloc(count * sizeof *tiles);
    if (tiles == NULL) return 1;  // libheif then says what it can
    heif_item_references(items, dimg, grid, tiles, count);
    uint32_t first_width = 0, first_height = 0;
    int agree = 1;
    for (uint32_t t = 0; agree && t < count; t++) {
        uint32_t width = 0, height = 0;
        agree = item_extent(items, tiles[t], &width, &height) && width != 0 && height != 0 &&
                (t == 0 || (width == first_width && height == first_height));
        if (t == 0) {
            first_width = width;
            first_height = height;
        }
    }
    free(tiles);
    return agree;
}

int heif_grids_are_whole(const heif_items *items) {
    span cursor = {0};
    uint32_t id, type;
    while (heif_items_next(items, &cursor, &id, &type)) {
        // A grid whose tiles cannot be sized would be pasted at made-up places, leaving parts
        // of the picture unwritten.
        if (type == HEIF_FOURCC('g', 'r', 'i', 'd') &&
            !(items->has_iref && items->has_properties && grid_tiles_agree(items, id))) {
            return 0;
        }
    }
    return 1;
}
