// Reading a grid's boxes into a plan of its tiles (heif_tiled_grid.h): where each tile's
// properties and coded bytes lie, and the grid's irot and imir as an orientation.
#include <stdlib.h>
#include <string.h>

#include "heif_boxes.h"
#include "heif_tiled_grid.h"

// More than this many properties or extents for one item, tiles for one grid, or items or
// properties in one file, is not a file a camera writes (an iPhone's 48-MP photo has 192 tiles,
// 200 MP in tiles of 512 would be 768); the picture then goes to libheif whole. The caps also
// bound the plan's work, which looks each tile up in iinf, iloc and ipma: at most 4,096 x 8,192
// entries read, and each property found by its index.
enum { MAX_ITEM_PROPERTIES = 32, MAX_ITEM_EXTENTS = 64, MAX_TILES = 4096, MAX_ITEMS = 8192, MAX_PROPERTIES = 8192 };

/// The boxes of a file's meta box that a plan reads, and ipco's properties by index.
typedef struct heif_meta {
    span file;
    span iinf, iloc, iref, ipco, ipma, idat;
    int has_idat;
    /// Whole property boxes in ipco's order (index 1 is properties[0]).
    span *properties;
    uint32_t property_count;
} heif_meta;

/// Finds the boxes; 0 when one is missing, damaged, or there are more items or properties than
/// the caps. Release with free_meta.
static int read_meta(span file, heif_meta *meta) {
    span box, iprp;
    memset(meta, 0, sizeof *meta);
    meta->file = file;
    if (!heif_find_box(file, HEIF_FOURCC('m', 'e', 't', 'a'), &box)) return 0;
    heif_skip(&box, 4);
    meta->has_idat = heif_find_box(box, HEIF_FOURCC('i', 'd', 'a', 't'), &meta->idat);
    if (box.bad || !heif_find_box(box, HEIF_FOURCC('i', 'i', 'n', 'f'), &meta->iinf) ||
        !heif_find_box(box, HEIF_FOURCC('i', 'l', 'o', 'c'), &meta->iloc) ||
        !heif_find_box(box, HEIF_FOURCC('i', 'r', 'e', 'f'), &meta->iref) ||
        !heif_find_box(box, HEIF_FOURCC('i', 'p', 'r', 'p'), &iprp) ||
        !heif_find_box(iprp, HEIF_FOURCC('i', 'p', 'c', 'o'), &meta->ipco) ||
        !heif_find_box(iprp, HEIF_FOURCC('i', 'p', 'm', 'a'), &meta->ipma)) {
        return 0;
    }
    span iinf = meta->iinf;
    const uint32_t version = heif_read(&iinf, 1);
    heif_skip(&iinf, 3);
    if (heif_read(&iinf, version == 0 ? 2 : 4) > MAX_ITEMS || iinf.bad) return 0;
    meta->properties = malloc(MAX_PROPERTIES * sizeof *meta->properties);
    if (meta->properties == NULL) return 0;
    span boxes = meta->ipco, payload;
    uint32_t kind;
    while (meta->property_count < MAX_PROPERTIES &&
           heif_next_box_whole(&boxes, &kind, &payload, &meta->properties[meta->property_count])) {
        meta->property_count++;
    }
    return 1;
}

static void free_meta(heif_meta *meta) {
    free(meta->properties);
    meta->properties = NULL;
}

static uint32_t primary_item(span file) {
    span meta, pitm;
    if (!heif_find_box(file, HEIF_FOURCC('m', 'e', 't', 'a'), &meta)) return 0;
    heif_skip(&meta, 4);
    if (meta.bad || !heif_find_box(meta, HEIF_FOURCC('p', 'i', 't', 'm'), &pitm)) return 0;
    uint32_t version = heif_read(&pitm, 1);
    heif_skip(&pitm, 3);
    uint32_t id = heif_read(&pitm, version == 0 ? 2 : 4);
    return pitm.bad ? 0 : id;
}

/// The item type of `id` (its infe, version 2 or 3); 0 when it has none.
static uint32_t item_type(const heif_meta *meta, uint32_t id) {
    span iinf = meta->iinf, entry;
    uint32_t version = heif_read(&iinf, 1), kind;
    heif_skip(&iinf, 3);
    heif_read(&iinf, version == 0 ? 2 : 4);  // the entry count; the boxes themselves say
    while (heif_next_box(&iinf, &kind, &entry)) {
        if (kind != HEIF_FOURCC('i', 'n', 'f', 'e')) continue;
        uint32_t entry_version = heif_read(&entry, 1);
        heif_skip(&entry, 3);
        if (entry_version < 2) continue;
        uint32_t item = heif_read(&entry, entry_version == 2 ? 2 : 4);
        heif_skip(&entry, 2);
        uint32_t type = heif_read(&entry, 4);
        if (!entry.bad && item == id) return type;
    }
    return 0;
}

/// The extents of item `id` from iloc (construction method 0, the file, or 1, the idat box);
/// their count, or 0 when the item has none this path can read.
static uint32_t item_extents(const heif_meta *meta, uint32_t id, heif_grid_extent *extents, uint32_t capacity) {
    span iloc = meta->iloc;
    const uint32_t version = heif_read(&iloc, 1);
    heif_skip(&iloc, 3);
    uint32_t sizes = heif_read(&iloc, 1);
    const size_t offset_size = sizes >> 4, length_size = sizes & 15;
    sizes = heif_read(&iloc, 1);
    const size_t base_size = sizes >> 4, index_size = (version == 1 || version == 2) ? (sizes & 15) : 0;
    if (version > 2 || offset_size > 8 || length_size > 8 || base_size > 8 || index_size > 8) return 0;
    const uint32_t items = heif_read(&iloc, version < 2 ? 2 : 4);
    for (uint32_t i = 0; i < items && !iloc.bad; i++) {
        const uint32_t item = heif_read(&iloc, version < 2 ? 2 : 4);
        const uint32_t method = (version == 1 || version == 2) ? (heif_read(&iloc, 2) & 15) : 0;
        const uint32_t data_reference = heif_read(&iloc, 2);
        const uint64_t base = heif_read_wide(&iloc, base_size);
        const uint32_t count = heif_read(&iloc, 2);
        const int wanted = item == id;
        if (wanted && (data_reference != 0 || method > 1 || (method == 1 && !meta->has_idat) || count == 0 ||
                       count > capacity)) {
            return 0;
        }
        const span source = method == 1 ? meta->idat : meta->file;
        for (uint32_t e = 0; e < count && !iloc.bad; e++) {
            heif_read_wide(&iloc, index_size);
            const uint64_t offset = heif_read_wide(&iloc, offset_size);
            uint64_t length = heif_read_wide(&iloc, length_size);
            if (!wanted) continue;
            const uint64_t start = base + offset;
            if (start < base || start > source.left) return 0;
            if (length == 0) length = source.left - start;  // to the end
            if (length == 0 || length > source.left - start) return 0;
            extents[e] = (heif_grid_extent){.at = source.at + start, .size = (size_t)length};
        }
        if (wanted) return iloc.bad ? 0 : count;
    }
    return 0;
}

/// The property boxes ipma associates with item `id`, in order; their count (0 when it has none,
/// more than `capacity`, or one that ipco does not have).
static uint32_t item_properties(const heif_meta *meta, uint32_t id, heif_grid_property *properties, uint32_t capacity) {
    span ipma = meta->ipma;
    const uint32_t version = heif_read(&ipma, 1), flags = heif_read(&ipma, 3);
    const uint32_t entries = heif_read(&ipma, 4);
    for (uint32_t e = 0; e < entries && !ipma.bad; e++) {
        const uint32_t item = heif_read(&ipma, version < 1 ? 2 : 4);
        const uint32_t count = heif_read(&ipma, 1);
        uint32_t found = 0;
        for (uint32_t a = 0; a < count && !ipma.bad; a++) {
            const uint32_t value = (flags & 1) ? heif_read(&ipma, 2) : heif_read(&ipma, 1);
            const uint32_t index = value & ((flags & 1) ? 0x7FFF : 0x7F);
            if (item != id || index == 0) continue;
            // Properties are numbered from 1 in the order of ipco.
            if (found == capacity || index > meta->property_count) return 0;
            const span whole = meta->properties[index - 1];
            properties[found++] = (heif_grid_property){
                .box = whole.at, .size = whole.left, .essential = (value >> ((flags & 1) ? 15 : 7)) & 1};
        }
        if (item == id) return ipma.bad ? 0 : found;
    }
    return 0;
}

static uint32_t box_type(const heif_grid_property *property) {
    span box = {.at = property->box + 4, .left = 4};
    return heif_read(&box, 4);
}

/// The payload of a property box (after its 8-byte header; properties are small, never 64-bit).
static span property_payload(const heif_grid_property *property) {
    return (span){.at = property->box + 8, .left = property->size >= 8 ? property->size - 8 : 0};
}

/// The tiles `dimg` names for `grid`, in raster order; their count (0 when there is no such
/// reference or more than `capacity` tiles).
static uint32_t grid_tiles(const heif_meta *meta, uint32_t grid, uint32_t *ids, uint32_t capacity) {
    span iref = meta->iref, reference;
    const uint32_t version = heif_read(&iref, 1);
    heif_skip(&iref, 3);
    const size_t id_size = version == 0 ? 2 : 4;
    uint32_t kind;
    while (heif_next_box(&iref, &kind, &reference)) {
        if (kind != HEIF_FOURCC('d', 'i', 'm', 'g') || heif_read(&reference, id_size) != grid) continue;
        const uint32_t count = heif_read(&reference, 2);
        if (count > capacity) return 0;
        for (uint32_t t = 0; t < count; t++) ids[t] = heif_read(&reference, id_size);
        return reference.bad ? 0 : count;
    }
    return 0;
}

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
static uint32_t grid_orientation(const heif_grid_property *properties, uint32_t count) {
    uint32_t orientation = 1;
    for (uint32_t p = 0; p < count; p++) {
        span payload = property_payload(&properties[p]);
        switch (box_type(&properties[p])) {
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
static int add_tile(const heif_meta *meta, uint32_t id, uint32_t index, heif_tiled_grid *grid, uint32_t capacities[2]) {
    const uint32_t expected = grid->coding == CLS_HEIF_AV1 ? HEIF_FOURCC('a', 'v', '0', '1') : HEIF_FOURCC('h', 'v', 'c', '1');
    const uint32_t configuration = grid->coding == CLS_HEIF_AV1 ? HEIF_FOURCC('a', 'v', '1', 'C') : HEIF_FOURCC('h', 'v', 'c', 'C');
    if (item_type(meta, id) != expected) return 0;
    heif_grid_property properties[MAX_ITEM_PROPERTIES];
    heif_grid_extent extents[MAX_ITEM_EXTENTS];
    const uint32_t property_count = item_properties(meta, id, properties, MAX_ITEM_PROPERTIES);
    const uint32_t extent_count = item_extents(meta, id, extents, MAX_ITEM_EXTENTS);
    if (property_count == 0 || extent_count == 0) return 0;
    uint32_t width = 0, height = 0;
    int configured = 0;
    for (uint32_t p = 0; p < property_count; p++) {
        const uint32_t type = box_type(&properties[p]);
        if (type == configuration) configured = 1;
        // A tile that libheif would turn, mirror or cut is not pasted as it is stored.
        if (type == HEIF_FOURCC('i', 'r', 'o', 't') || type == HEIF_FOURCC('i', 'm', 'i', 'r') ||
            type == HEIF_FOURCC('c', 'l', 'a', 'p')) {
            return 0;
        }
        if (type == HEIF_FOURCC('i', 's', 'p', 'e')) {
            span payload = property_payload(&properties[p]);
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

/// The plan of grid item `primary`, on the boxes `meta` found; 0 when this path does not decode it.
static int plan(const heif_meta *meta, uint32_t primary, heif_tiled_grid *grid) {
    if (item_type(meta, primary) != HEIF_FOURCC('g', 'r', 'i', 'd')) return 0;

    // The ImageGrid description (ISO/IEC 23008-12, 6.6.2.3.2): version 0, flags (bit 0: 32-bit
    // sizes), rows - 1, columns - 1, output width and height. It may be split over extents.
    heif_grid_extent extents[4];
    const uint32_t extent_count = item_extents(meta, primary, extents, 4);
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

    heif_grid_property grid_properties[MAX_ITEM_PROPERTIES];
    grid->orientation =
        grid_orientation(grid_properties, item_properties(meta, primary, grid_properties, MAX_ITEM_PROPERTIES));
    if (grid->orientation == 0) return 0;

    const uint32_t tile_count = grid->rows * grid->columns;  // at most 256 x 256
    if (tile_count > MAX_TILES) return 0;
    uint32_t *ids = malloc(tile_count * sizeof *ids);
    grid->tiles = calloc(tile_count, sizeof *grid->tiles);
    int planned = ids != NULL && grid->tiles != NULL && grid_tiles(meta, primary, ids, tile_count) == tile_count;
    uint32_t capacities[2] = {0, 0};
    for (uint32_t t = 0; planned && t < tile_count; t++) planned = add_tile(meta, ids[t], t, grid, capacities);
    free(ids);
    // Every tile must add pixels to the output, and together they must cover it.
    return planned && (uint64_t)grid->columns * grid->tile_width >= grid->width &&
           (uint64_t)(grid->columns - 1) * grid->tile_width < grid->width &&
           (uint64_t)grid->rows * grid->tile_height >= grid->height &&
           (uint64_t)(grid->rows - 1) * grid->tile_height < grid->height;
}

int heif_tiled_grid_plan(const uint8_t *data, size_t size, cls_heif_coding coding, heif_tiled_grid *grid) {
    memset(grid, 0, sizeof *grid);
    grid->coding = coding;
    const span file = {.at = data, .left = size};
    heif_meta meta;
    const uint32_t primary = data == NULL ? 0 : primary_item(file);
    if (primary == 0) return 0;
    const int read = read_meta(file, &meta);
    const int planned = read && plan(&meta, primary, grid);
    free_meta(&meta);
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
