#include "cls_raw_preview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libraw/libraw.h>

struct cls_raw_file {
    libraw_data_t *libraw;
};

static cls_status fail(int code, cls_message *message) {
    cls_message_set(message, libraw_strerror(code));
    switch (code) {
        case LIBRAW_FILE_UNSUPPORTED:
            return CLS_UNSUPPORTED;
        case LIBRAW_UNSUFFICIENT_MEMORY:
            return CLS_OUT_OF_MEMORY;
        case LIBRAW_TOO_BIG:
            return CLS_TOO_LARGE;
        case LIBRAW_IO_ERROR:
            return CLS_TRUNCATED;
        default:
            return CLS_CORRUPT;
    }
}

// LibRaw's `flip` (dcraw's convention) as an EXIF orientation: 3 is half a turn, 5 a quarter
// turn counter-clockwise, 6 a quarter turn clockwise; anything else is upright.
static uint32_t orientation_for_flip(int flip) {
    switch (flip) {
        case 3: return 3;
        case 5: return 8;
        case 6: return 6;
        default: return 1;
    }
}

cls_status cls_raw_open(const uint8_t *data, size_t size, cls_raw_file **raw, cls_raw_preview *preview,
                        cls_message *message) {
    *raw = NULL;
    memset(preview, 0, sizeof *preview);
    if (data == NULL || size == 0) {
        cls_message_set(message, "no raw data");
        return CLS_INVALID_ARGUMENT;
    }
    cls_raw_file *state = calloc(1, sizeof *state);
    if (state == NULL || (state->libraw = libraw_init(0)) == NULL) {
        free(state);
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    // LibRaw only reads the buffer; its API takes a non-const pointer.
    int code = libraw_open_buffer(state->libraw, (void *)data, size);
    if (code != LIBRAW_SUCCESS) {
        cls_status status = fail(code, message);
        cls_raw_close(state);
        return status;
    }
    libraw_data_t *libraw = state->libraw;
    snprintf(preview->camera, sizeof preview->camera, "%s %s", libraw->idata.make, libraw->idata.model);
    preview->orientation = orientation_for_flip(libraw->sizes.flip);
    *raw = state;
    code = libraw_unpack_thumb(libraw);
    if (code != LIBRAW_SUCCESS) {
        // No preview (or one LibRaw cannot extract) is not a broken file: the caller says so.
        cls_message_set(message, code == LIBRAW_NO_THUMBNAIL ? "no embedded preview" : libraw_strerror(code));
        if (LIBRAW_FATAL_ERROR(code) && code != LIBRAW_UNSUPPORTED_THUMBNAIL) {
            cls_status status = fail(code, message);
            cls_raw_close(state);
            *raw = NULL;
            return status;
        }
        return CLS_OK;
    }
    const libraw_thumbnail_t *thumbnail = &libraw->thumbnail;
    preview->width = thumbnail->twidth;
    preview->height = thumbnail->theight;
    preview->bytes = (const uint8_t *)thumbnail->thumb;
    preview->length = thumbnail->tlength;
    if (thumbnail->thumb == NULL || thumbnail->tlength == 0) {
        cls_message_set(message, "the embedded preview is empty");
    } else if (thumbnail->tformat == LIBRAW_THUMBNAIL_JPEG) {
        preview->kind = CLS_RAW_PREVIEW_JPEG;
    } else if (thumbnail->tformat == LIBRAW_THUMBNAIL_BITMAP && thumbnail->tcolors == 3 &&
               (size_t)thumbnail->twidth * thumbnail->theight * 3 <= thumbnail->tlength) {
        preview->kind = CLS_RAW_PREVIEW_BITMAP;
    } else {
        cls_message_set(message, "the embedded preview is in a form LibRaw cannot hand out as JPEG or RGB");
    }
    return CLS_OK;
}

void cls_raw_close(cls_raw_file *raw) {
    if (raw == NULL) return;
    if (raw->libraw != NULL) libraw_close(raw->libraw);
    free(raw);
}
