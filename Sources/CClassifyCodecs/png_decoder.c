#include "cls_png_decoder.h"

#include <stdlib.h>
#include <string.h>
#include <png.h>

struct cls_png_decoder {
    png_image image;
};

// libpng only gives a text message; running out of bytes has recognisable wording, and
// everything else (CRC errors, bad chunks, zlib errors) means the data is damaged.
static cls_status status_for_message(const char *text) {
    static const char *const truncation_phrases[] = {
        "read beyond end of data",
        "Not enough image data",
        "end of file",
        "Read Error",
    };
    for (size_t i = 0; i < sizeof truncation_phrases / sizeof truncation_phrases[0]; i++) {
        if (strstr(text, truncation_phrases[i]) != NULL) return CLS_TRUNCATED;
    }
    if (strstr(text, "out of memory") != NULL || strstr(text, "Out of memory") != NULL) {
        return CLS_OUT_OF_MEMORY;
    }
    return CLS_CORRUPT;
}

static cls_status fail_from_image(png_image *image, cls_message *message) {
    cls_status status = status_for_message(image->message);
    cls_message_set(message, image->message);
    return status;
}

cls_status cls_png_decoder_open(const uint8_t *data, size_t size, uint64_t maximum_pixel_count,
                                cls_png_decoder **decoder, cls_png_header *header,
                                cls_message *message) {
    *decoder = NULL;
    memset(header, 0, sizeof *header);
    if (data == NULL || size == 0) {
        cls_message_set(message, "no PNG data");
        return CLS_INVALID_ARGUMENT;
    }
    cls_png_decoder *state = calloc(1, sizeof *state);
    if (state == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    state->image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&state->image, data, size)) {
        cls_status status = fail_from_image(&state->image, message);
        cls_png_decoder_close(state);
        return status;
    }
    header->width = state->image.width;
    header->height = state->image.height;
    if ((uint64_t)state->image.width * state->image.height > maximum_pixel_count) {
        cls_message_set(message, "PNG dimensions exceed the pixel limit");
        cls_png_decoder_close(state);
        return CLS_TOO_LARGE;
    }
    *decoder = state;
    return CLS_OK;
}

cls_status cls_png_decoder_read_pixels(cls_png_decoder *decoder, uint8_t *rgb, size_t capacity,
                                       cls_message *message) {
    if (decoder == NULL || rgb == NULL) {
        cls_message_set(message, "no decoder or output buffer");
        return CLS_INVALID_ARGUMENT;
    }
    png_image *image = &decoder->image;
    image->format = PNG_FORMAT_RGB;
    image->flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    if ((size_t)image->width * 3 > capacity / (image->height == 0 ? 1 : image->height)) {
        cls_message_set(message, "output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    const png_color white = {255, 255, 255};
    if (!png_image_finish_read(image, &white, rgb, 0, NULL)) {
        return fail_from_image(image, message);
    }
    return CLS_OK;
}

void cls_png_decoder_close(cls_png_decoder *decoder) {
    if (decoder == NULL) return;
    png_image_free(&decoder->image);
    free(decoder);
}
