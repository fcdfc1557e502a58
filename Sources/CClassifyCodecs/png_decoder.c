#include "cls_png_decoder.h"

#include <stdlib.h>
#include <string.h>
#include <png.h>

#include "gamma_encoding.h"

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

// libpng's simplified API scrambles rows when it reduces an Adam7-interlaced 16-bit image to
// 8-bit output (png_image_read_direct_scaled, libpng issue #853; present in Debian's patched
// 1.6.39). Its 16-bit linear output is unaffected, so every 16-bit file takes that route,
// interlaced or not (both layouts then give identical pixels): libpng converts to linear
// light with premultiplied alpha, we add white for the uncovered fraction (compositing in
// linear light, as libpng's 8-bit path does) and encode back to 8 bits.
// Costs a temporary 8 bytes per pixel.
static cls_status read_sixteen_bit(png_image *image, uint8_t *rgb, cls_message *message) {
    size_t pixel_count = (size_t)image->width * image->height;
    if (pixel_count > SIZE_MAX / 8) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    uint16_t *linear = malloc(pixel_count * 4 * sizeof *linear);
    if (linear == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    image->format = PNG_FORMAT_LINEAR_RGB_ALPHA;
    if (!png_image_finish_read(image, NULL, linear, 0, NULL)) {
        free(linear);
        return fail_from_image(image, message);
    }
    const uint8_t *encode = cls_linear_to_gamma22_table();
    for (size_t i = 0; i < pixel_count; i++) {
        const uint16_t *pixel = linear + 4 * i;
        uint32_t uncovered = 65535u - pixel[3];
        for (size_t c = 0; c < 3; c++) {
            uint32_t value = pixel[c] + uncovered;
            rgb[3 * i + c] = encode[value > 65535u ? 65535u : value];
        }
    }
    free(linear);
    return CLS_OK;
}

cls_status cls_png_decoder_read_pixels(cls_png_decoder *decoder, uint8_t *rgb, size_t capacity,
                                       cls_message *message) {
    if (decoder == NULL || rgb == NULL) {
        cls_message_set(message, "no decoder or output buffer");
        return CLS_INVALID_ARGUMENT;
    }
    png_image *image = &decoder->image;
    if ((size_t)image->width * 3 > capacity / (image->height == 0 ? 1 : image->height)) {
        cls_message_set(message, "output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    // Without gAMA/sRGB/iCCP libpng would call 16-bit samples linear; in practice such files
    // are sRGB-encoded (browsers and Pillow treat them so), and so do we.
    // begin_read marked 16-bit files with the LINEAR flag (the flag was not set yet).
    const int sixteen_bit = (image->format & PNG_FORMAT_FLAG_LINEAR) != 0;
    image->flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    if (sixteen_bit) {
        return read_sixteen_bit(image, rgb, message);
    }
    image->format = PNG_FORMAT_RGB;
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
