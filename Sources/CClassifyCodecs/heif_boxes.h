// Reading the boxes of an ISO base media file (ISO/IEC 14496-12), which HEIF and AVIF are: a
// bounded view of bytes whose every read checks the end, shared by the HEIF checks and the
// tile-by-tile grid decoder. A failed read poisons the view, so a caller checks once at the end.
//
//   span file = {.at = data, .left = size}, meta;
//   if (heif_find_box(file, HEIF_FOURCC('m', 'e', 't', 'a'), &meta)) { heif_skip(&meta, 4); ... }
#ifndef CLS_HEIF_BOXES_H
#define CLS_HEIF_BOXES_H

#include <stddef.h>
#include <stdint.h>

#define HEIF_FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/// A bounded view of bytes; `bad` is set by the first read past the end.
typedef struct span {
    const uint8_t *at;
    size_t left;
    int bad;
} span;

/// The next `n` (at most 4) bytes as a big-endian number; 0 and a bad view past the end.
static inline uint32_t heif_read(span *s, size_t n) {
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

/// The next `n` (at most 8) bytes as a big-endian number, for iloc's 8-byte offsets.
static inline uint64_t heif_read_wide(span *s, size_t n) {
    uint64_t high = n > 4 ? heif_read(s, n - 4) : 0;
    return high << 32 | heif_read(s, n > 4 ? 4 : n);
}

static inline void heif_skip(span *s, size_t n) {
    if (s->bad || s->left < n) {
        s->bad = 1;
        return;
    }
    s->at += n;
    s->left -= n;
}

/// The next box of `s`: its type, its payload (after the header) and, in `whole`, the box with
/// its header; 0 at the end or on a damaged box.
static inline int heif_next_box_whole(span *s, uint32_t *type, span *payload, span *whole) {
    if (s->bad || s->left < 8) return 0;
    span header = *s;
    uint64_t size = heif_read(&header, 4);
    *type = heif_read(&header, 4);
    if (size == 1) {
        size = heif_read_wide(&header, 8);
    } else if (size == 0) {
        size = s->left;
    }
    size_t header_size = s->left - header.left;
    if (header.bad || size < header_size || size > s->left) {
        s->bad = 1;
        return 0;
    }
    *payload = (span){.at = header.at, .left = (size_t)size - header_size};
    if (whole != NULL) *whole = (span){.at = s->at, .left = (size_t)size};
    heif_skip(s, (size_t)size);
    return 1;
}

/// The next box of `s`: its type and its payload; 0 at the end or on a damaged box.
static inline int heif_next_box(span *s, uint32_t *type, span *payload) {
    return heif_next_box_whole(s, type, payload, NULL);
}

/// The payload of the first child of `parent` of `type`; 0 when there is none.
static inline int heif_find_box(span parent, uint32_t type, span *found) {
    uint32_t kind;
    span payload;
    while (heif_next_box(&parent, &kind, &payload)) {
        if (kind == type) {
            *found = payload;
            return 1;
        }
    }
    return 0;
}

#endif
