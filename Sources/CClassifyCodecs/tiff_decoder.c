#include "cls_tiff_decoder.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

#include "alpha_compositing.h"
#include "cls_row_reduction.h"

struct cls_tiff_decoder {
    const uint8_t *data;
    size_t size;
    toff_t position;
    TIFF *tiff;
    uint32_t width;
    uint32_t height;
    /// 1, 2, 4 or 8: read_pixels writes the image reduced by this factor (cls_row_reduction.h).
    uint32_t factor;
    /// Set by cls_tiff_decoder_crop: only this rectangle of the reduced picture is written.
    cls_output_crop crop;
    /// The first error libtiff reported for this file.
    char error[CLS_MESSAGE_CAPACITY];
};

// Memory-backed I/O for TIFFClientOpen: libtiff reads and seeks; writing is refused.
static tmsize_t read_bytes(thandle_t handle, void *buffer, tmsize_t count) {
    cls_tiff_decoder *state = handle;
    if (count <= 0 || state->position >= state->size) return 0;
    size_t available = state->size - (size_t)state->position;
    size_t length = (size_t)count < available ? (size_t)count : available;
    memcpy(buffer, state->data + state->position, length);
    state->position += length;
    return (tmsize_t)length;
}

static tmsize_t write_bytes(thandle_t handle, void *buffer, tmsize_t count) {
    (void)handle, (void)buffer, (void)count;
    return 0;
}

static toff_t seek(thandle_t handle, toff_t offset, int whence) {
    cls_tiff_decoder *state = handle;
    uint64_t base = whence == SEEK_CUR ? state->position : whence == SEEK_END ? state->size : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    state->position = base + offset;
    return state->position;
}

static int close_nothing(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t file_size(thandle_t handle) { return ((cls_tiff_decoder *)handle)->size; }

static int no_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle, (void)base, (void)size;
    return 0;
}

static void no_unmap(thandle_t handle, void *base, toff_t size) { (void)handle, (void)base, (void)size; }

static int keep_first_error(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff, (void)module;
    cls_tiff_decoder *state = user_data;
    if (state->error[0] == '\0') vsnprintf(state->error, sizeof state->error, format, arguments);
    return 1;
}

static int ignore_warning(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff, (void)user_data, (void)module, (void)format, (void)arguments;
    return 1;
}

// libtiff only gives text; reads past the end of the data have recognisable wording.
static cls_status fail(cls_tiff_decoder *state, const char *fallback, cls_message *message) {
    const char *text = state->error[0] != '\0' ? state->error : fallback;
    cls_message_set(message, text);
    static const char *const truncation_phrases[] = {"Read error", "Seek error", "Not enough data", "EOF",
                                                     "Cannot read TIFF header", "unexpected end"};
    for (size_t i = 0; i < sizeof truncation_phrases / sizeof truncation_phrases[0]; i++) {
        if (strstr(text, truncation_phrases[i]) != NULL) return CLS_TRUNCATED;
    }
    if (strstr(text, "Memory") != NULL || strstr(text, "memory") != NULL) return CLS_OUT_OF_MEMORY;
    if (strstr(text, "not supported") != NULL || strstr(text, "Sorry") != NULL ||
        strstr(text, "not configured") != NULL || strstr(text, "unsupported") != NULL) {
        return CLS_UNSUPPORTED;
    }
    return CLS_CORRUPT;
}

cls_status cls_tiff_decoder_open(const uint8_t *data, size_t size, uint64_t maximum_pixel_count,
                                 uint32_t minimum_short_side, cls_tiff_decoder **decoder, cls_image_info *info,
                                 cls_message *message) {
    *decoder = NULL;
    memset(info, 0, sizeof *info);
    if (data == NULL || size == 0) {
        cls_message_set(message, "no TIFF data");
        return CLS_INVALID_ARGUMENT;
    }
    cls_tiff_decoder *state = calloc(1, sizeof *state);
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (state == NULL || options == NULL) {
        free(state);
        TIFFOpenOptionsFree(options);
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    state->data = data;
    state->size = size;
    TIFFOpenOptionsSetErrorHandlerExtR(options, keep_first_error, state);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ignore_warning, state);
    // "m": never memory-map (we already hold the bytes); "r": read only.
    state->tiff = TIFFClientOpenExt("image.tiff", "rm", state, read_bytes, write_bytes, seek, close_nothing,
                                    file_size, no_map, no_unmap, options);
    TIFFOpenOptionsFree(options);
    if (state->tiff == NULL) {
        cls_status status = fail(state, "not a readable TIFF", message);
        free(state);
        return status;
    }
    uint32_t width = 0, height = 0;
    if (!TIFFGetField(state->tiff, TIFFTAG_IMAGEWIDTH, &width) ||
        !TIFFGetField(state->tiff, TIFFTAG_IMAGELENGTH, &height) || width == 0 || height == 0) {
        cls_status status = fail(state, "the TIFF has no image size", message);
        cls_tiff_decoder_close(state);
        return status;
    }
    info->width = width;
    info->height = height;
    if ((uint64_t)width * height > maximum_pixel_count) {
        cls_message_set(message, "TIFF dimensions exceed the pixel limit");
        cls_tiff_decoder_close(state);
        return CLS_TOO_LARGE;
    }
    char reason[1024] = "";
    if (!TIFFRGBAImageOK(state->tiff, reason)) {
        cls_message_set(message, reason[0] != '\0' ? reason : "a TIFF layout libtiff cannot convert to RGB");
        cls_tiff_decoder_close(state);
        return CLS_UNSUPPORTED;
    }
    uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(state->tiff, TIFFTAG_ORIENTATION, &orientation);
    state->width = width;
    state->height = height;
    state->factor = cls_reduction_factor(width, height, minimum_short_side);
    info->output_width = cls_reduced_length(width, state->factor);
    info->output_height = cls_reduced_length(height, state->factor);
    info->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    *decoder = state;
    return CLS_OK;
}

// Rows per call of TIFFRGBAImageGet: whole strips (or tile rows), at least 16 rows, so each
// strip or tile is decoded once and the raster holds a band, not the picture. A file stored as
// one big compressed strip still needs that strip whole (libtiff decodes it in one piece);
// uncompressed single strips are chopped into small ones by libtiff when it opens the file.
static uint32_t band_rows(TIFF *tiff, uint32_t height) {
    uint32_t unit = 0;
    if (TIFFIsTiled(tiff)) {
        TIFFGetField(tiff, TIFFTAG_TILELENGTH, &unit);
    } else {
        TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &unit);
    }
    if (unit == 0 || unit > height) unit = height;
    uint32_t rows = unit;
    while (rows < 16 && rows < height) rows += unit;
    return rows < height ? rows : height;
}

cls_status cls_tiff_decoder_read_pixels(cls_tiff_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message) {
    if (decoder == NULL || rgb == NULL ||
        (decoder->crop.width ? (size_t)decoder->crop.width * decoder->crop.height * 3
                             : (size_t)cls_reduced_length(decoder->width, decoder->factor) *
                                   cls_reduced_length(decoder->height, decoder->factor) * 3) > capacity) {
        cls_message_set(message, "no decoder or output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    const uint32_t width = decoder->width, height = decoder->height;
    const uint32_t band = band_rows(decoder->tiff, height);
    uint32_t *raster = malloc((size_t)width * band * sizeof *raster);
    uint8_t *row = malloc((size_t)width * 3);
    cls_row_reducer reducer = {0};
    int reducing = cls_row_reducer_init(&reducer, width, height, decoder->factor, rgb);
    cls_row_reducer_crop(&reducer, decoder->crop);
    if (raster == NULL || row == NULL || !reducing) {
        free(raster);
        free(row);
        cls_row_reducer_free(&reducer);
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    char reason[1024] = "";
    TIFFRGBAImage image;
    // stop = 1: a damaged strip or tile is an error, not a silently partial picture.
    if (!TIFFRGBAImageBegin(&image, decoder->tiff, 1, reason)) {
        free(raster);
        free(row);
        cls_row_reducer_free(&reducer);
        if (decoder->error[0] == '\0') snprintf(decoder->error, sizeof decoder->error, "%s", reason);
        return fail(decoder, "a TIFF layout libtiff cannot convert to RGB", message);
    }
    // Asking for the file's own orientation makes libtiff flip nothing, so rows come top-down
    // in stored order, and Swift applies the Orientation tag like EXIF orientation (libtiff's
    // own flips do not cover the transposing orientations 5 to 8).
    image.req_orientation = image.orientation;
    int ok = 1;
    for (uint32_t top = 0; ok && top < height; top += band) {
        const uint32_t rows = height - top < band ? height - top : band;
        image.row_offset = (int)top;
        ok = TIFFRGBAImageGet(&image, raster, width, rows);
        for (uint32_t y = 0; ok && y < rows; y++) {
            // ABGR words: on every byte order TIFFGetR/G/B/A take the channels out of the word.
            uint32_t *words = raster + (size_t)y * width;
            uint8_t *rgba = (uint8_t *)words;
            for (uint32_t x = 0; x < width; x++) {
                uint32_t word = words[x];
                rgba[4 * x] = (uint8_t)TIFFGetR(word);
                rgba[4 * x + 1] = (uint8_t)TIFFGetG(word);
                rgba[4 * x + 2] = (uint8_t)TIFFGetB(word);
                rgba[4 * x + 3] = (uint8_t)TIFFGetA(word);
            }
            // libtiff's RGBA interface premultiplies unassociated alpha, so every raster is premultiplied.
            cls_composite_premultiplied_rgba_onto_white(rgba, row, width);
            cls_row_reducer_add(&reducer, row);
        }
    }
    TIFFRGBAImageEnd(&image);
    free(raster);
    free(row);
    cls_row_reducer_free(&reducer);
    if (!ok) return fail(decoder, "the TIFF image data cannot be decoded", message);
    return CLS_OK;
}

void cls_tiff_decoder_close(cls_tiff_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->tiff != NULL) TIFFClose(decoder->tiff);
    free(decoder);
}

cls_status cls_tiff_decoder_crop(cls_tiff_decoder *decoder, cls_output_crop crop, cls_image_info *info,
                                 cls_message *message) {
    return cls_output_crop_set(crop, &decoder->crop, &info->output_width, &info->output_height, message);
}
