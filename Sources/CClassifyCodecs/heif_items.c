#include "heif_items.h"

#include <stdlib.h>
#include <string.h>

int heif_items_read(span file, heif_items *items) {
    span box, iprp;
    memset(items, 0, sizeof *items);
    items->file = file;
    if (!heif_find_box(file, HEIF_FOURCC('m', 'e', 't', 'a'), &box)) return 0;
    heif_skip(&box, 4);
    if (box.bad || !heif_find_box(box, HEIF_FOURCC('i', 'i', 'n', 'f'), &items->iinf)) return 0;
    span pitm, iinf = items->iinf;
    if (heif_find_box(box, HEIF_FOURCC('p', 'i', 't', 'm'), &pitm)) {
        const uint32_t version = heif_read(&pitm, 1);
        heif_skip(&pitm, 3);
        const uint32_t id = heif_read(&pitm, version == 0 ? 2 : 4);
        items->primary = pitm.bad ? 0 : id;
    }
    const uint32_t version = heif_read(&iinf, 1);
    heif_skip(&iinf, 3);
    items->declared_count = heif_read(&iinf, version == 0 ? 2 : 4);
    items->has_idat = heif_find_box(box, HEIF_FOURCC('i', 'd', 'a', 't'), &items->idat);
    items->has_iloc = heif_find_box(box, HEIF_FOURCC('i', 'l', 'o', 'c'), &items->iloc);
    items->has_iref = heif_find_box(box, HEIF_FOURCC('i', 'r', 'e', 'f'), &items->iref);
    items->has_properties = heif_find_box(box, HEIF_FOURCC('i', 'p', 'r', 'p'), &iprp) &&
                            heif_find_box(iprp, HEIF_FOURCC('i', 'p', 'c', 'o'), &items->ipco) &&
                            heif_find_box(iprp, HEIF_FOURCC('i', 'p', 'm', 'a'), &items->ipma);
    // Properties are found by their index in ipco: each box's place is read once, here.
    span boxes = items->ipco, payload, whole;
    uint32_t kind, capacity = 0;
    while (items->has_properties && heif_next_box_whole(&boxes, &kind, &payload, &whole)) {
        if (items->property_count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            span *bigger = realloc(items->properties, capacity * sizeof *bigger);
            if (bigger == NULL) {
                heif_items_free(items);
                return 0;
            }
            items->properties = bigger;
        }
        items->properties[items->property_count++] = whole;
    }
    return 1;
}

void heif_items_free(heif_items *items) {
    free(items->properties);
    items->properties = NULL;
    items->property_count = 0;
}

int heif_items_next(const heif_items *items, span *cursor, uint32_t *id, uint32_t *type) {
    if (cursor->at == NULL) {
        *cursor = items->iinf;
        const uint32_t version = heif_read(cursor, 1);
        heif_skip(cursor, 4 + (version == 0 ? 2 : 4) - 1);  // flags and the entry count
    }
    span entry;
    uint32_t kind;
    while (heif_next_box(cursor, &kind, &entry)) {
        if (kind != HEIF_FOURCC('i', 'n', 'f', 'e')) continue;
        const uint32_t version = heif_read(&entry, 1);
        heif_skip(&entry, 3);
        if (version < 2) continue;  // no item type before version 2
        *id = heif_read(&entry, version == 2 ? 2 : 4);
        heif_skip(&entry, 2);
        *type = heif_read(&entry, 4);
        if (!entry.bad) return 1;
    }
    return 0;
}

uint32_t heif_item_type(const heif_items *items, uint32_t id) {
    span cursor = {0};
    uint32_t item, type;
    while (heif_items_next(items, &cursor, &item, &type)) {
        if (item == id) return type;
    }
    return 0;
}

uint32_t heif_item_extents(const heif_items *items, uint32_t id, heif_extent *extents, uint32_t capacity) {
    if (!items->has_iloc) return 0;
    span iloc = items->iloc;
    const uint32_t version = heif_read(&iloc, 1);
    heif_skip(&iloc, 3);
    uint32_t sizes = heif_read(&iloc, 1);
    const size_t offset_size = sizes >> 4, length_size = sizes & 15;
    sizes = heif_read(&iloc, 1);
    const size_t base_size = sizes >> 4, index_size = (version == 1 || version == 2) ? (sizes & 15) : 0;
    if (version > 2 || offset_size > 8 || length_size > 8 || base_size > 8 || index_size > 8) return 0;
    const uint32_t entries = heif_read(&iloc, version < 2 ? 2 : 4);
    for (uint32_t i = 0; i < entries && !iloc.bad; i++) {
        const uint32_t item = heif_read(&iloc, version < 2 ? 2 : 4);
        const uint32_t method = (version == 1 || version == 2) ? (heif_read(&iloc, 2) & 15) : 0;
        const uint32_t data_reference = heif_read(&iloc, 2);
        const uint64_t base = heif_read_wide(&iloc, base_size);
        const uint32_t count = heif_read(&iloc, 2);
        const int wanted = item == id;
        if (wanted && (data_reference != 0 || method > 1 || (method == 1 && !items->has_idat) || count == 0 ||
                       count > capacity)) {
            return 0;
        }
        const span source = method == 1 ? items->idat : items->file;
        for (uint32_t e = 0; e < count && !iloc.bad; e++) {
            heif_read_wide(&iloc, index_size);
            const uint64_t offset = heif_read_wide(&iloc, offset_size);
            uint64_t length = heif_read_wide(&iloc, length_size);
            if (!wanted) continue;
            const uint64_t start = base + offset;
            if (start < base || start > source.left) return 0;
            if (length == 0) length = source.left - start;  // to the end
            if (length == 0 || length > source.left - start) return 0;
            extents[e] = (heif_extent){.at = source.at + start, .size = (size_t)length};
        }
        if (wanted) return iloc.bad ? 0 : count;
    }
    return 0;
}

uint32_t heif_item_properties(const heif_items *items, uint32_t id, heif_property *properties, uint32_t capacity) {
    if (!items->has_properties) return 0;
    span ipma = items->ipma;
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
            if (found == capacity || index > items->property_count) return 0;
            const span whole = items->properties[index - 1];
            properties[found++] = (heif_property){
                .box = whole.at, .size = whole.left, .essential = (value >> ((flags & 1) ? 15 : 7)) & 1};
        }
        if (item == id) return ipma.bad ? 0 : found;
    }
    return 0;
}

uint32_t heif_property_type(const heif_property *property) {
    span box = {.at = property->box + 4, .left = 4};
    return heif_read(&box, 4);
}

span heif_property_payload(const heif_property *property) {
    return (span){.at = property->box + 8, .left = property->size >= 8 ? property->size - 8 : 0};
}

uint32_t heif_item_references(const heif_items *items, uint32_t type, uint32_t from, uint32_t *ids, uint32_t capacity) {
    if (!items->has_iref) return 0;
    span iref = items->iref, reference;
    const uint32_t version = heif_read(&iref, 1);
    heif_skip(&iref, 3);
    const size_t id_size = version == 0 ? 2 : 4;
    uint32_t kind, found = 0;
    while (heif_next_box(&iref, &kind, &reference)) {
        if (kind != type || heif_read(&reference, id_size) != from) continue;
        const uint32_t count = heif_read(&reference, 2);
        for (uint32_t r = 0; r < count && !reference.bad; r++, found++) {
            const uint32_t id = heif_read(&reference, id_size);
            if (found < capacity) ids[found] = id;
        }
        if (reference.bad) return 0;
    }
    return found;
}
