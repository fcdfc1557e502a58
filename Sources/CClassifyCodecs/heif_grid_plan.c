// Reading a grid's boxes into a plan of its tiles (heif_tiled_grid.h): where each tile's
// properties and coded bytes lie, and the grid's irot and imir as an orientation.
#include <stdlib.h>
#include <string.h>

#include "heif_items.h"
#include "heif_tiled_grid.h"

// More than this many properties or extents for one item, tiles for one grid, or items or
// properties in one file, is not a file a camera writes (an iPhone's 48-MP photo has 192 tiles,
// 200 MP in tiles of 512 would be 768); the picture then goes to libheif whole. The caps also
// bound the plan's work, which looks each tile up in iinf, iloc and ipma: at most 4,096 x 8,192
// entries read, and each property found by its index.
enum { MAX_ITEM_PROPERTIES = 32, MAX_ITEM_EXTENTS = 64, MAX_TILES = 4096, MAX_ITEMS = 8192, MAX_PROPERTIES = 8192 };

// An EXIF orientation as the 2 x 2 matrix it applies to centred coordinates (x to the right, y
// down), stored to upright: {a, b, c, d} maps (x, y) to (a x + b y, c x + d y).
static const int orientation_matrices[8][4] = {
    {1, 0, 0, 1},    // 1: upright
    {-1, 0, 0, 1},   // 2: mirrored left-right
    {-1, 0, 0, -1},  // 3: half a turn
    {1, 0, 0, -1},   // 4: mirrored top-bottom
    {0, 1, 1, 0},    // 5: transposed
    {0, -1, 1, 0},   // 6: a quarter turn clockwise
    {0, -1, -1, 0},  // 7: transversed
    {0, 1, -1, 0},   // 8: a quarter turn anticlockwise
};

/// The orientation that does `orientation` first and `then` after.
static uint32_t compose(uint32_t orientation, uint32_t then) {
    const int *a = orientation_matrices[orientation - 1], *b = orientation_matrices[then - 1];
    const int m[4] = {b[0] * a[0] + b[1] * a[2], b[0] * a[1] + b[1] * a[3], b[2] * a[0] + b[3] * a[2],
                      b[2] * a[1] + b[3] * a[3]};
    for (uint32_t o = 0; o < 8; o++) {
        if (memcmp(m, orientation_matrices[o], sizeof m) == 0) return o + 1;
    }
    return 1;  // unreachable: the eight matrices are a group
}

/// The grid item's own properties as an orientation, in their order (irot: quarter turns
/// anticlockwise; imir as libheif 1.15 reads it: 1 mirrors left-right, as it writes EXIF
/// orientation 2, 0 top-bottom); 0 when it has a transformation libheif must apply (a clean
/// aperture) or unreadable ones.
static uint32_t grid_orientation(const heif_property *properties, uint32_t count) {
    uint32_t orientation = 1;
    for (uint32_t p = 0; p < count; p++) {
        span payload = heif_property_payload(&properties[p]);
        switch (heif_property_type(&properties[p])) {
            case HEIF_FOURCC('i', 'r', 'o', 't'): {
                const uint32_t turns = heif_read(&payload, 1) & 3;
                for (uint32_t t = 0; t < turns; t++) orientation = compose(orientation, 8);
                break;
            }
            case HEIF_FOURCC('i', 'm', 'i', 'r'):
                orientation = compose(orientation, (heif_read(&payload, 1) & 1) ? 2 : 4);
                break;
            case HEIF_FOURCC('c', 'l', 'a', 'p'):
                return 0;
            default:
                break;
        }
        if (payload.bad) return 0;
    }
    return orientation;
}

/// Appends to a growing array of `size`-byte elements; 0 when memory runs out.
static int append(void **array, uint32_t *count, uint32_t *capacity, size_t size, const void *elements, uint32_t n) {
    if (*count + n > *capacity) {
        uint32_t grown = *capacity ? *capacity : 64;
        while (grown < *count + n) grown *= 2;
        void *bigger = realloc(*array, (size_t)grown * size);
        if (bigger == NULL) return 0;
        *array = bigger;
        *capacity = grown;
    }
    memcpy((uint8_t *)*array + (size_t)*count * size, elements, (size_t)n * size);
    *count += n;
    return 1;
}

/// Adds tile `id` to the plan as tile `index`; 0 when it is not a tile of `coding` this path can
/// decode, or memory runs out.
static int add_tile(const heif_items *items, uint32_t id, uint32_t index, heif_tiled_grid *grid, uint32_t capacities[2]) {
    const uint32_t expected = grid->coding == CLS_HEIF_AV1 ? HEIF_FOURCC('a', 'v', '0', '1') : HEIF_FOURCC('h', 'v', 'c', '1');
    const uint32_t configuration = grid->coding == CLS_HEIF_AV1 ? HEIF_FOURCC('a', 'v', '1', 'C') : HEIF_FOURCC('h', 'v', 'c', 'C');
    if (heif_item_type(items, id) != expected) return 0;
    heif_property properties[MAX_ITEM_PROPERTIES];
    heif_extent extents[MAX_ITEM_EXTENTS];
    const uint32_t property_count = heif_item_properties(items, id, properties, MAX_ITEM_PROPERTIES);
    const uint32_t extent_count = heif_item_extents(items, id, extents, MAX_ITEM_EXTENTS);
    if (property_count == 0 || extent_count == 0) return 0;
    uint32_t width = 0, height = 0;
    int configured = 0;
    for (uint32_t p = 0; p < property_count; p++) {
        const uint32_t type = heif_property_type(&properties[p]);
        if (type == configuration) configured = 1;
        // A tile that libheif would turn, mirror or cut is not pasted as it is stored.
        if (type == HEIF_FOURCC('i', 'r', 'o', 't') || type == HEIF_FOURCC('i', 'm', 'i', 'r') ||
            type == HEIF_FOURCC('c', 'l', 'a', 'p')) {
            return 0;
        }
        if (type == HEIF_FOURCC('i', 's', 'p', 'e')) {
            span payload = heif_property_payload(&properties[p]);
            heif_skip(&payload, 4);
            width = heif_read(&payload, 4);
            height = heif_read(&payload, 4);
            if (payload.bad) return 0;
        }
    }
    if (!configured || width == 0 || height == 0) return 0;
    if (grid->tile_width == 0) {
        grid->tile_width = width;
        grid->tile_height = height;
    } else if (width != grid->tile_width || height != grid->tile_height) {
        return 0;
    }
    grid->tiles[index] = (heif_grid_tile){
        .first_property = grid->property_count,
        .property_count = property_count,
        .first_extent = grid->extent_count,
        .extent_count = extent_count,
    };
    return append((void **)&grid->properties, &grid->property_count, &capacities[0], sizeof *properties, properties,
                  property_count) &&
           append((void **)&grid->extents, &grid->extent_count, &capacities[1], sizeof *extents, extents, extent_count);
}

/// The plan of grid item `primary`, on the items `items` read; 0 when this path does not decode it.
static int plan(const heif_items *items, uint32_t primary, heif_tiled_grid *grid) {
    if (heif_item_type(items, primary) != HEIF_FOURCC('g', 'r', 'i', 'd')) return 0;

    // The ImageGrid description (ISO/IEC 23008-12, 6.6.2.3.2): version 0, flags (bit 0: 32-bit
    // sizes), rows - 1, columns - 1, output width and height. It may be split over extents.
    heif_extent extents[4];
    const uint32_t extent_count = heif_item_extents(items, primary, extents, 4);
    uint8_t description[12];
    size_t described = 0;
    for (uint32_t e = 0; e < extent_count && described < sizeof description; e++) {
        size_t n = extents[e].size < sizeof description - described ? extents[e].size : sizeof description - described;
        memcpy(description + described, extents[e].at, n);
        described += n;
    }
    span fields = {.at = description, .left = described};
    const uint32_t version = heif_read(&fields, 1), flags = heif_read(&fields, 1);
    grid->rows = heif_read(&fields, 1) + 1;
    grid->columns = heif_read(&fields, 1) + 1;
    grid->width = heif_read(&fields, (flags & 1) ? 4 : 2);
    grid->height = heif_read(&fields, (flags & 1) ? 4 : 2);
    if (fields.bad || version != 0 || grid->width == 0 || grid->height == 0) return 0;

    heif_property grid_properties[MAX_ITEM_PROPERTIES];
    grid->orientation =
        grid_orientation(grid_properties, heif_item_properties(items, primary, grid_properties, MAX_ITEM_PROPERTIES));
    if (grid->orientation == 0) return 0;

    const uint32_t tile_count = grid->rows * grid->columns;  // at most 256 x 256
    if (tile_count > MAX_TILES) return 0;
    uint32_t *ids = malloc(tile_count * sizeof *ids);
    grid->tiles = calloc(tile_count, sizeof *grid->tiles);
    int planned = ids != NULL && grid->tiles != NULL && heif_item_references(items, HEIF_FOURCC('d', 'i', 'm', 'g'), primary, ids, tile_count) == tile_count;
    uint32_t capacities[2] = {0, 0};
    for (uint32_t t = 0; planned && t < tile_count; t++) planned = add_tile(items, ids[t], t, grid, capacities);
    free(ids);
    // Every tile must add pixels to the output, and together they must cover it.
    return planned && (uint64_t)grid->columns * grid->tile_width >= grid->width &&
           (uint64_t)(grid->columns - 1) * grid->tile_width < grid->width &&
           (uint64_t)grid->rows * grid->tile_height >= grid->height &&
           (uint64_t)(grid->rows - 1) * grid->tile_height < grid->height;
}

int heif_tiled_grid_plan(const heif_items *items, cls_heif_coding coding, heif_tiled_grid *grid) {
    memset(grid, 0, sizeof *grid);
    grid->coding = coding;
    const int planned = items->primary != 0 && items->has_iloc && items->has_iref && items->has_properties &&
                        items->declared_count <= MAX_ITEMS && items->property_count <= MAX_PROPERTIES &&
                        plan(items, items->primary, grid);
    if (!planned) heif_tiled_grid_free(grid);
    return planned;
}

void heif_tiled_grid_free(heif_tiled_grid *grid) {
    free(grid->tiles);
    free(grid->properties);
    free(grid->extents);
    grid->tiles = NULL;
    grid->properties = NULL;
    grid->extents = NULL;
    grid->property_count = grid->extent_count = 0;
}
