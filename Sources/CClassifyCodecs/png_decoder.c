#include "cls_png_decoder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

#include "srgb_encoding.h"

struct cls_png_decoder {
    png_image image;
    /// Set for files with gAMA, sRGB or iCCP; decides how 16-bit samples are reduced.
    int declares_color_encoding;
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

// Whether the file says how its samples are encoded (gAMA, sRGB or iCCP before the image
// data). Bounds-checked walk over the chunk list; a damaged list just answers "no".
static int declares_color_encoding(const uint8_t *data, size_t size) {
    size_t offset = 8;  // after the signature
    if (size < offset) return 0;
    while (size - offset >= 8) {
        uint32_t length = (uint32_t)data[offset] << 24 | (uint32_t)data[offset + 1] << 16 |
                          (uint32_t)data[offset + 2] << 8 | data[offset + 3];
        const uint8_t *type = data + offset + 4;
        if (memcmp(type, "IDAT", 4) == 0) return 0;
        if (memcmp(type, "gAMA", 4) == 0 || memcmp(type, "sRGB", 4) == 0 ||
            memcmp(type, "iCCP", 4) == 0) {
            return 1;
        }
        if (length > size - offset - 8 || size - offset - 8 - length < 4) return 0;
        offset += 8 + (size_t)length + 4;
    }
    return 0;
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
    state->declares_color_encoding = declares_color_encoding(data, size);
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

// Samples as stored, for files without colour information: taken as sRGB-encoded, as
// browsers and Pillow do. Opaque ones are scaled to 8 bits, transparent ones become white,
// and partly transparent ones are blended onto white in linear light, like libpng's 8-bit
// path. `premultiplied` is colour * alpha in the encoded space.
static uint8_t reduce_stored_sample(uint16_t premultiplied, uint16_t alpha) {
    if (alpha == 65535u) return (uint8_t)(((uint32_t)premultiplied * 255u + 32767u) / 65535u);
    if (alpha == 0) return 255;
    double coverage = alpha / 65535.0;
    double encoded = premultiplied / 65535.0 / coverage;
    if (encoded > 1.0) encoded = 1.0;
    double linear = coverage * cls_srgb_to_linear(encoded) + (1.0 - coverage);
    return (uint8_t)lround(cls_linear_to_srgb(linear) * 255.0);
}

// Linear premultiplied samples, for files with colour information (libpng converted them):
// add white for the uncovered fraction, then encode back with libpng's own power law.
static uint8_t reduce_linear_sample(uint16_t premultiplied, uint16_t alpha, const uint8_t *encode) {
    uint32_t value = (uint32_t)premultiplied + (65535u - alpha);
    return encode[value > 65535u ? 65535u : value];
}

// libpng's simplified API scrambles rows when it reduces an Adam7-interlaced 16-bit image to
// 8-bit output (png_image_read_direct_scaled, libpng issue #853; present in Debian's patched
// 1.6.39). Its 16-bit "linear" output is unaffected, so 16-bit files take that route and we
// reduce to 8 bits ourselves. Without PNG_IMAGE_FLAG_16BIT_sRGB and without colour chunks,
// libpng hands back the stored samples unchanged (alpha premultiplied); with colour chunks it
// converts them to linear light. All 16-bit files use this path, interlaced or not, so both
// layouts give identical pixels. Costs a temporary 8 bytes per pixel.
static cls_status read_sixteen_bit(cls_png_decoder *decoder, uint8_t *rgb, cls_message *message) {
    png_image *image = &decoder->image;
    size_t pixel_count = (size_t)image->width * image->height;
    if (pixel_count > SIZE_MAX / 8) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    uint16_t *samples = malloc(pixel_count * 4 * sizeof *samples);
    if (samples == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    image->format = PNG_FORMAT_LINEAR_RGB_ALPHA;
    if (!png_image_finish_read(image, NULL, samples, 0, NULL)) {
        free(samples);
        return fail_from_image(image, message);
    }
    const uint8_t *encode = decoder->declares_color_encoding ? cls_linear_to_gamma22_table() : NULL;
    for (size_t i = 0; i < pixel_count; i++) {
        const uint16_t *pixel = samples + 4 * i;
        for (size_t c = 0; c < 3; c++) {
            rgb[3 * i + c] = encode != NULL ? reduce_linear_sample(pixel[c], pixel[3], encode)
                                            : reduce_stored_sample(pixel[c], pixel[3]);
        }
    }
    free(samples);
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
    // begin_read marks 16-bit files with the LINEAR flag.
    if ((image->format & PNG_FORMAT_FLAG_LINEAR) != 0) {
        return read_sixteen_bit(decoder, rgb, message);
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
