#include "cls_png_decoder.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

#include "gamma_encoding.h"
#include "cls_row_reduction.h"

struct cls_png_decoder {
    png_image image;
    const uint8_t *data;
    size_t size;
    /// 1, 2, 4 or 8: read_pixels writes the image reduced by this factor (cls_row_reduction.h).
    uint32_t factor;
    /// Set by cls_png_decoder_crop: only this rectangle of the reduced picture is written.
    cls_output_crop crop;
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
                                uint32_t minimum_short_side, cls_png_decoder **decoder, cls_png_header *header,
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
    state->data = data;
    state->size = size;
    state->factor = cls_reduction_factor(state->image.width, state->image.height, minimum_short_side);
    header->output_width = cls_reduced_length(state->image.width, state->factor);
    header->output_height = cls_reduced_length(state->image.height, state->factor);
    header->scale_denominator = state->factor;
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

// The whole picture through the simplified API, at full size into `rgb`.
static cls_status read_whole(cls_png_decoder *decoder, uint8_t *rgb, cls_message *message) {
    png_image *image = &decoder->image;
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

// Row-by-row reading through libpng's low-level API, for the files where the simplified API's
// output is just the stored samples widened to RGB: not interlaced (Adam7 rows only settle after
// the last pass), at most 8 bits, no alpha channel or tRNS, and sRGB-encoded (no gAMA chunk, or
// one within 2% of sRGB's 1/2.2, where libpng does not correct gamma). Everything else takes the
// simplified API. PNGDecodingTests compare both paths on every eligible layout.
typedef struct png_stream {
    const uint8_t *data;
    size_t size;
    size_t offset;
    jmp_buf jump;
    char message[CLS_MESSAGE_CAPACITY];
} png_stream;

static void stream_read(png_structp png, png_bytep buffer, size_t length) {
    png_stream *stream = png_get_io_ptr(png);
    if (length > stream->size - stream->offset) png_error(png, "read beyond end of data");
    memcpy(buffer, stream->data + stream->offset, length);
    stream->offset += length;
}

static void stream_error(png_structp png, png_const_charp text) {
    png_stream *stream = png_get_error_ptr(png);
    snprintf(stream->message, sizeof stream->message, "%s", text);
    longjmp(stream->jump, 1);
}

static void stream_warning(png_structp png, png_const_charp text) { (void)png, (void)text; }

static int streamable(png_structp png, png_infop info) {
    int color = png_get_color_type(png, info);
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE || png_get_bit_depth(png, info) > 8) return 0;
    if ((color & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS)) return 0;
    png_fixed_point gamma = 0;
    if (!png_get_valid(png, info, PNG_INFO_sRGB) && png_get_gAMA_fixed(png, info, &gamma) &&
        (gamma < 44455 || gamma > 46455)) {
        return 0;
    }
    return 1;
}

// 1: read (or failed, with *status set); 0: not streamable, use the simplified API.
static int read_streaming(cls_png_decoder *decoder, uint8_t *rgb, cls_status *status, cls_message *message) {
    png_stream stream = {.data = decoder->data, .size = decoder->size};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &stream, stream_error, stream_warning);
    png_infop info = png == NULL ? NULL : png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        cls_message_set(message, "out of memory");
        *status = CLS_OUT_OF_MEMORY;
        return 1;
    }
    // Written between setjmp and a longjmp back to it, so volatile.
    uint8_t *volatile row = NULL;
    cls_row_reducer *volatile reducer = NULL;
    volatile int handled = 1;
    if (setjmp(stream.jump) != 0) {
        cls_message_set(message, stream.message);
        *status = status_for_message(stream.message);
    } else {
        png_set_read_fn(png, &stream, stream_read);
        png_read_info(png, info);
        if (!streamable(png, info)) {
            handled = 0;
        } else {
            png_set_expand(png);
            png_set_gray_to_rgb(png);
            png_read_update_info(png, info);
            const uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
            if (width != decoder->image.width || height != decoder->image.height ||
                png_get_rowbytes(png, info) != (size_t)width * 3) {
                png_error(png, "unexpected row layout");
            }
            row = malloc((size_t)width * 3);
            reducer = malloc(sizeof *reducer);
            if (row == NULL || reducer == NULL || !cls_row_reducer_init(reducer, width, height, decoder->factor, rgb)) {
                png_error(png, "out of memory");
            }
            cls_row_reducer_crop(reducer, decoder->crop);
            for (uint32_t y = 0; y < height; y++) {
                png_read_row(png, row, NULL);
                cls_row_reducer_add(reducer, row);
            }
            *status = CLS_OK;
        }
    }
    if (reducer != NULL) cls_row_reducer_free(reducer);
    free(reducer);
    free(row);
    png_destroy_read_struct(&png, &info, NULL);
    return handled;
}

cls_status cls_png_decoder_read_pixels(cls_png_decoder *decoder, uint8_t *rgb, size_t capacity,
                                       cls_message *message) {
    if (decoder == NULL || rgb == NULL) {
        cls_message_set(message, "no decoder or output buffer");
        return CLS_INVALID_ARGUMENT;
    }
    png_image *image = &decoder->image;
    const uint32_t output_width = decoder->crop.width ? decoder->crop.width : cls_reduced_length(image->width, decoder->factor);
    const uint32_t output_height = decoder->crop.width ? decoder->crop.height : cls_reduced_length(image->height, decoder->factor);
    if ((size_t)output_width * 3 > capacity / (output_height == 0 ? 1 : output_height)) {
        cls_message_set(message, "output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    cls_status status = CLS_OK;
    if (read_streaming(decoder, rgb, &status, message)) return status;
    if (decoder->factor == 1 && decoder->crop.width == 0) return read_whole(decoder, rgb, message);
    // The simplified API needs the whole picture: decode it full size, then reduce (or cut).
    const size_t row_bytes = (size_t)image->width * 3;
    uint8_t *full = malloc(row_bytes * image->height);
    cls_row_reducer reducer = {0};
    if (full == NULL || !cls_row_reducer_init(&reducer, image->width, image->height, decoder->factor, rgb)) {
        free(full);
        cls_row_reducer_free(&reducer);
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    cls_row_reducer_crop(&reducer, decoder->crop);
    status = read_whole(decoder, full, message);
    if (status == CLS_OK) {
        for (uint32_t y = 0; y < image->height; y++) cls_row_reducer_add(&reducer, full + y * row_bytes);
    }
    cls_row_reducer_free(&reducer);
    free(full);
    return status;
}

cls_status cls_png_decoder_crop(cls_png_decoder *decoder, cls_output_crop crop, cls_png_header *header,
                                cls_message *message) {
    return cls_output_crop_set(crop, &decoder->crop, &header->output_width, &header->output_height, message);
}

void cls_png_decoder_close(cls_png_decoder *decoder) {
    if (decoder == NULL) return;
    png_image_free(&decoder->image);
    free(decoder);
}
