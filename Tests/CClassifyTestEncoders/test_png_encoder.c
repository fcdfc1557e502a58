#include "cls_test_encoders.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

// Everything that must survive a longjmp lives in this heap object; the entry point only
// keeps an unchanging pointer to it.
typedef struct png_encode_job {
    png_structp png;
    png_infop info;
    cls_message message;
    uint8_t *output;
    size_t output_size;
    size_t output_capacity;
    uint8_t *image;
    png_bytep *rows;
} png_encode_job;

// Called by png_error: remember the text; libpng then longjmps to png_jmpbuf itself.
static void record_error(png_structp png, png_const_charp text) {
    png_encode_job *job = png_get_error_ptr(png);
    cls_message_set(&job->message, text);
}

static void ignore_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void append_output(png_structp png, png_bytep data, size_t length) {
    png_encode_job *job = png_get_io_ptr(png);
    if (job->output_capacity - job->output_size < length) {
        size_t capacity = job->output_capacity ? job->output_capacity * 2 : 4096;
        while (capacity - job->output_size < length) capacity *= 2;
        uint8_t *grown = realloc(job->output, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        job->output = grown;
        job->output_capacity = capacity;
    }
    memcpy(job->output + job->output_size, data, length);
    job->output_size += length;
}

static void flush_output(png_structp png) { (void)png; }

static int channel_count(cls_test_png_color color) {
    switch (color) {
    case CLS_TEST_PNG_GRAY:
    case CLS_TEST_PNG_PALETTE:
        return 1;
    case CLS_TEST_PNG_GRAY_ALPHA:
        return 2;
    case CLS_TEST_PNG_RGB:
        return 3;
    case CLS_TEST_PNG_RGBA:
        return 4;
    }
    return 0;
}

static void release_job(png_encode_job *job) {
    png_destroy_write_struct(&job->png, &job->info);
    free(job->output);
    free(job->image);
    free(job->rows);
    free(job);
}

// PNG stores 16-bit samples big-endian.
static void pack_samples(png_encode_job *job, const cls_test_png_options *options,
                         const uint16_t *samples, size_t row_bytes) {
    size_t per_row = (size_t)options->width * (size_t)channel_count(options->color);
    for (uint32_t y = 0; y < options->height; y++) {
        uint8_t *row = job->image + (size_t)y * row_bytes;
        const uint16_t *source = samples + (size_t)y * per_row;
        job->rows[y] = row;
        for (size_t i = 0; i < per_row; i++) {
            if (options->bit_depth == 16) {
                row[2 * i] = (uint8_t)(source[i] >> 8);
                row[2 * i + 1] = (uint8_t)(source[i] & 0xFF);
            } else {
                row[i] = (uint8_t)source[i];
            }
        }
    }
}

cls_status cls_test_encode_png(const cls_test_png_options *options, const uint16_t *samples,
                               uint8_t **bytes, size_t *size, cls_message *message) {
    *bytes = NULL;
    *size = 0;
    int channels = channel_count(options->color);
    if (channels == 0 || (options->bit_depth != 8 && options->bit_depth != 16) ||
        (options->color == CLS_TEST_PNG_PALETTE && options->bit_depth != 8)) {
        cls_message_set(message, "unsupported colour type / bit depth combination");
        return CLS_INVALID_ARGUMENT;
    }
    png_encode_job *job = calloc(1, sizeof *job);
    if (job == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    size_t row_bytes = (size_t)options->width * (size_t)channels * (size_t)(options->bit_depth / 8);
    job->image = malloc(row_bytes * options->height + 1);
    job->rows = calloc(options->height + 1, sizeof *job->rows);
    job->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, job, record_error, ignore_warning);
    if (job->png != NULL) job->info = png_create_info_struct(job->png);
    if (job->image == NULL || job->rows == NULL || job->png == NULL || job->info == NULL) {
        release_job(job);
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    if (setjmp(png_jmpbuf(job->png))) {
        cls_message_set(message, job->message.text);
        release_job(job);
        return CLS_INVALID_ARGUMENT;
    }
    png_set_write_fn(job->png, job, append_output, flush_output);
    png_set_IHDR(job->png, job->info, options->width, options->height, options->bit_depth,
                 (int)options->color,
                 options->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (options->color == CLS_TEST_PNG_PALETTE) {
        png_color palette[256];
        int count = options->palette_count > 256 ? 256 : options->palette_count;
        for (int i = 0; i < count; i++) {
            palette[i].red = options->palette_rgb[3 * i];
            palette[i].green = options->palette_rgb[3 * i + 1];
            palette[i].blue = options->palette_rgb[3 * i + 2];
        }
        png_set_PLTE(job->png, job->info, palette, count);
        if (options->palette_alpha_count > 0) {
            png_set_tRNS(job->png, job->info, options->palette_alpha,
                         options->palette_alpha_count, NULL);
        }
    }
    if (options->srgb_chunk) {
        png_set_sRGB_gAMA_and_cHRM(job->png, job->info, PNG_sRGB_INTENT_PERCEPTUAL);
    }
    if (options->exif_size > 0) {
        png_set_eXIf_1(job->png, job->info, (png_uint_32)options->exif_size,
                       (png_bytep)options->exif);
    }
    pack_samples(job, options, samples, row_bytes);
    png_write_info(job->png, job->info);
    // png_write_image runs all seven Adam7 passes when interlacing is on.
    png_set_interlace_handling(job->png);
    png_write_image(job->png, job->rows);
    png_write_end(job->png, job->info);

    *bytes = job->output;
    *size = job->output_size;
    job->output = NULL;
    release_job(job);
    return CLS_OK;
}
