#include "heif_grid_check.h"

#include <string.h>

// A bounded view of bytes; every read checks the end, and a failed read poisons the view.
typedef struct span {
    const uint8_t *at;
    size_t left;
    int bad;
} span;

static uint32_t read_bytes(span *s, size_t n) {
    if (s->bad || s->left < n) {
        s->bad = 1;
        return 0;
    }
    uint32_t value = 0;
    for (size_t i = 0; i < n; i++) value = value << 8 | s->at[i];
    s->at += n;
    s->left -= n;
    return value;
}

static void skip(span *s, size_t n) {
    if (s->bad || s->left < n) {
        s->bad = 1;
        return;
    }
    s->at += n;
    s->left -= n;
}

// The next box of `s`: its type and its payload (after the header); 0 at the end or on a bad box.
static int next_box(span *s, uint32_t *type, span *payload) {
    if (s->bad || s->left < 8) return 0;
    span header = *s;
    uint64_t size = read_bytes(&header, 4);
    *type = read_bytes(&header, 4);
    if (size == 1) {
        size = (uint64_t)read_bytes(&header, 4) << 32;
        size |= read_bytes(&header, 4);
    } else if (size == 0) {
        size = s->left;
    }
    size_t header_size = s->left - header.left;
    if (header.bad || size < header_size || size > s->left) {
        s->bad = 1;
        return 0;
    }
    *payload = (span){.at = header.at, .left = (size_t)size - header_size};
    skip(s, (size_t)size);
    return 1;
}

// The payload of the first child of `parent` of `type`; 0 when there is none.
static int find_box(span parent, uint32_t type, span *found) {
    uint32_t kind;
    span payload;
    while (next_box(&parent, &kind, &payload)) {
        if (kind == type) {
            *found = payload;
            return 1;
        }
    }
    return 0;
}

#define FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

// The size an item's `ispe` property gives it; 0 when it has none (or the boxes are damaged).
static int item_extent(span ipco, span ipma, uint32_t item, uint32_t *width, uint32_t *height) {
    uint32_t version = read_bytes(&ipma, 1), flags = read_bytes(&ipma, 3);
    uint32_t entries = read_bytes(&ipma, 4);
    for (uint32_t e = 0; e < entries && !ipma.bad; e++) {
        uint32_t id = read_bytes(&ipma, version < 1 ? 2 : 4);
        uint32_t count = read_bytes(&ipma, 1);
        for (uint32_t a = 0; a < count && !ipma.bad; a++) {
            uint32_t index = (flags & 1) ? read_bytes(&ipma, 2) & 0x7FFF : read_bytes(&ipma, 1) & 0x7F;
            if (id != item || index == 0) continue;
            // Properties are numbered from 1 in the order of ipco.
            span properties = ipco, payload;
            uint32_t kind = 0;
            for (uint32_t p = 0; p < index; p++) {
                if (!next_box(&properties, &kind, &payload)) return 0;
            }
            if (kind != FOURCC('i', 's', 'p', 'e')) continue;
            skip(&payload, 4);
            *width = read_bytes(&payload, 4);
            *height = read_bytes(&payload, 4);
            return !payload.bad;
        }
    }
    return 0;
}

// Whether every tile `dimg` names for `grid` has an ispe, all of one size.
static int grid_tiles_agree(span iref, uint32_t iref_version, span ipco, span ipma, uint32_t grid) {
    uint32_t kind;
    span reference;
    while (next_box(&iref, &kind, &reference)) {
        if (kind != FOURCC('d', 'i', 'm', 'g')) continue;
        size_t id_size = iref_version == 0 ? 2 : 4;
        if (read_bytes(&reference, id_size) != grid) continue;
        uint32_t count = read_bytes(&reference, 2);
        uint32_t first_width = 0, first_height = 0;
        for (uint32_t t = 0; t < count && !reference.bad; t++) {
            uint32_t tile = read_bytes(&reference, id_size), width = 0, height = 0;
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
    if (data == NULL || !find_box(file, FOURCC('m', 'e', 't', 'a'), &meta)) return 1;
    skip(&meta, 4);
    if (meta.bad || !find_box(meta, FOURCC('i', 'i', 'n', 'f'), &iinf)) return 1;
    int has_iref = find_box(meta, FOURCC('i', 'r', 'e', 'f'), &iref);
    uint32_t iref_version = has_iref ? read_bytes(&iref, 1) : 0;
    if (has_iref) skip(&iref, 3);
    int has_properties = find_box(meta, FOURCC('i', 'p', 'r', 'p'), &iprp) &&
                         find_box(iprp, FOURCC('i', 'p', 'c', 'o'), &ipco) &&
                         find_box(iprp, FOURCC('i', 'p', 'm', 'a'), &ipma);

    uint32_t iinf_version = read_bytes(&iinf, 1);
    skip(&iinf, 3);
    read_bytes(&iinf, iinf_version == 0 ? 2 : 4);  // the entry count; the boxes themselves say
    uint32_t kind;
    span entry;
    while (next_box(&iinf, &kind, &entry)) {
        if (kind != FOURCC('i', 'n', 'f', 'e')) continue;
        uint32_t version = read_bytes(&entry, 1);
        skip(&entry, 3);
        if (version < 2) continue;  // no item type before version 2
        uint32_t id = read_bytes(&entry, version == 2 ? 2 : 4);
        skip(&entry, 2);
        uint32_t type = read_bytes(&entry, 4);
        if (entry.bad || type != FOURCC('g', 'r', 'i', 'd')) continue;
        // A grid whose tiles cannot be sized would be pasted at made-up places, leaving parts
        // of the picture unwritten.
        if (!has_iref || !has_properties || !grid_tiles_agree(iref, iref_version, ipco, ipma, id)) return 0;
    }
    return 1;
}
