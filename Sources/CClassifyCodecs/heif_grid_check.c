#include "heif_grid_check.h"

#include <string.h>

#include "heif_boxes.h"

// The size an item's `ispe` property gives it; 0 when it has none (or the boxes are damaged).
static int item_extent(span ipco, span ipma, uint32_t item, uint32_t *width, uint32_t *height) {
    uint32_t version = heif_read(&ipma, 1), flags = heif_read(&ipma, 3);
    uint32_t entries = heif_read(&ipma, 4);
    for (uint32_t e = 0; e < entries && !ipma.bad; e++) {
        uint32_t id = heif_read(&ipma, version < 1 ? 2 : 4);
        uint32_t count = heif_read(&ipma, 1);
        for (uint32_t a = 0; a < count && !ipma.bad; a++) {
            uint32_t index = (flags & 1) ? heif_read(&ipma, 2) & 0x7FFF : heif_read(&ipma, 1) & 0x7F;
            if (id != item || index == 0) continue;
            // Properties are numbered from 1 in the order of ipco.
            span properties = ipco, payload;
            uint32_t kind = 0;
            for (uint32_t p = 0; p < index; p++) {
                if (!heif_next_box(&properties, &kind, &payload)) return 0;
            }
            if (kind != HEIF_FOURCC('i', 's', 'p', 'e')) continue;
            heif_skip(&payload, 4);
            *width = heif_read(&payload, 4);
            *height = heif_read(&payload, 4);
            return !payload.bad;
        }
    }
    return 0;
}

// Whether every tile `dimg` names for `grid` has an ispe, all of one size.
static int grid_tiles_agree(span iref, uint32_t iref_version, span ipco, span ipma, uint32_t grid) {
    uint32_t kind;
    span reference;
    while (heif_next_box(&iref, &kind, &reference)) {
        if (kind != HEIF_FOURCC('d', 'i', 'm', 'g')) continue;
        size_t id_size = iref_version == 0 ? 2 : 4;
        if (heif_read(&reference, id_size) != grid) continue;
        uint32_t count = heif_read(&reference, 2);
        uint32_t first_width = 0, first_height = 0;
        for (uint32_t t = 0; t < count && !reference.bad; t++) {
            uint32_t tile = heif_read(&reference, id_size), width = 0, height = 0;
            if (reference.bad) break;
            if (!item_extent(ipco, ipma, tile, &width, &height) || width == 0 || height == 0) return 0;
            if (t == 0) {
                first_width = width;
                first_height = height;
            } else if (width != first_width || height != first_height) {
                return 0;
            }
        }
    }
    return 1;
}

int cls_heif_grids_are_whole(const uint8_t *data, size_t size) {
    span file = {.at = data, .left = size}, meta, iinf, iref, iprp, ipco, ipma;
    if (data == NULL || !heif_find_box(file, HEIF_FOURCC('m', 'e', 't', 'a'), &meta)) return 1;
    heif_skip(&meta, 4);
    if (meta.bad || !heif_find_box(meta, HEIF_FOURCC('i', 'i', 'n', 'f'), &iinf)) return 1;
    int has_iref = heif_find_box(meta, HEIF_FOURCC('i', 'r', 'e', 'f'), &iref);
    uint32_t iref_version = has_iref ? heif_read(&iref, 1) : 0;
    if (has_iref) heif_skip(&iref, 3);
    int has_properties = heif_find_box(meta, HEIF_FOURCC('i', 'p', 'r', 'p'), &iprp) &&
                         heif_find_box(iprp, HEIF_FOURCC('i', 'p', 'c', 'o'), &ipco) &&
                         heif_find_box(iprp, HEIF_FOURCC('i', 'p', 'm', 'a'), &ipma);

    uint32_t iinf_version = heif_read(&iinf, 1);
    heif_skip(&iinf, 3);
    heif_read(&iinf, iinf_version == 0 ? 2 : 4);  // the entry count; the boxes themselves say
    uint32_t kind;
    span entry;
    while (heif_next_box(&iinf, &kind, &entry)) {
        if (kind != HEIF_FOURCC('i', 'n', 'f', 'e')) continue;
        uint32_t version = heif_read(&entry, 1);
        heif_skip(&entry, 3);
        if (version < 2) continue;  // no item type before version 2
        uint32_t id = heif_read(&entry, version == 2 ? 2 : 4);
        heif_skip(&entry, 2);
        uint32_t type = heif_read(&entry, 4);
        if (entry.bad || type != HEIF_FOURCC('g', 'r', 'i', 'd')) continue;
        // A grid whose tiles cannot be sized would be pasted at made-up places, leaving parts
        // of the picture unwritten.
        if (!has_iref || !has_properties || !grid_tiles_agree(iref, iref_version, ipco, ipma, id)) return 0;
    }
    return 1;
}
