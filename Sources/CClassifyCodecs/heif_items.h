// The items of a HEIF or AVIF file (ISO/IEC 23008-12), read from its meta box: their types
// (iinf), where their bytes lie (iloc), their properties (ipco, ipma) and references (iref).
// Shared by the check of grid images and the plan of a grid decoded tile by tile.
//
//   heif_items items;
//   if (heif_items_read(file, &items)) {
//       uint32_t type = heif_item_type(&items, items.primary);
//       heif_items_free(&items);
//   }
#ifndef CLS_HEIF_ITEMS_H
#define CLS_HEIF_ITEMS_H

#include <stddef.h>
#include <stdint.h>

#include "heif_boxes.h"

/// A property box of an item (header included), and whether the item's ipma marks it essential.
typedef struct heif_property {
    const uint8_t *box;
    size_t size;
    int essential;
} heif_property;

/// A stretch of an item's bytes.
typedef struct heif_extent {
    const uint8_t *at;
    size_t size;
} heif_extent;

/// The boxes of a file's meta box, and ipco's property boxes by index.
typedef struct heif_items {
    span file;
    span iinf, iloc, iref, ipco, ipma, idat;
    int has_iloc, has_iref, has_properties, has_idat;
    /// The primary item (pitm); 0 when there is none.
    uint32_t primary;
    /// The entry count iinf declares (the infe boxes themselves are what is read).
    uint32_t declared_count;
    /// Whole property boxes in ipco's order (index 1 is properties[0]).
    span *properties;
    uint32_t property_count;
} heif_items;

/// Finds the meta box's boxes; 0 when the file has no meta box or no iinf (or memory runs out).
/// The others may be missing (the has_ flags say). Release with heif_items_free.
int heif_items_read(span file, heif_items *items);

void heif_items_free(heif_items *items);

/// The next item with a type (infe version 2 or 3) after `cursor` (start with a zeroed span);
/// 0 at the end.
int heif_items_next(const heif_items *items, span *cursor, uint32_t *id, uint32_t *type);

/// The type of item `id`; 0 when it has none.
uint32_t heif_item_type(const heif_items *items, uint32_t id);

/// The extents of item `id` from iloc (construction method 0, the file, or 1, the idat box);
/// their count, or 0 when the item has none that can be read or more than `capacity`.
uint32_t heif_item_extents(const heif_items *items, uint32_t id, heif_extent *extents, uint32_t capacity);

/// The property boxes ipma associates with item `id`, in order; their count (0 when it has none,
/// more than `capacity`, or one that ipco does not have).
uint32_t heif_item_properties(const heif_items *items, uint32_t id, heif_property *properties, uint32_t capacity);

/// A property box's type, and its payload (after its 8-byte header; properties are never 64-bit).
uint32_t heif_property_type(const heif_property *property);
span heif_property_payload(const heif_property *property);

/// The items that references of `type` (such as 'dimg') from `from` name, in order, across every
/// such reference box; the count of all of them, of which the first `capacity` are written to
/// `ids` (0 when there are none or a reference box is damaged).
uint32_t heif_item_references(const heif_items *items, uint32_t type, uint32_t from, uint32_t *ids, uint32_t capacity);

#endif
