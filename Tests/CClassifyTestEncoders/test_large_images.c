#include "cls_test_encoders.h"

#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

// The synthetic picture: smooth gradients plus a checker of 7 px squares, so every reduction
// factor sees detail and the files compress well. Deterministic from (x, y).
static void fill_row(uint8_t *row, uint32_t width, uint32_t y) {
    for (uint32_t x = 0; x < width; x++) {
        uint8_t checker = ((x / 7) + (y / 7)) % 2 ? 40 : 0;
        row[3 * x] = (uint8_t)((x * 255u / (width > 1 ? width - 1 : 1) + checker) & 0xff);
        row[3 * x + 1] = (uint8_t)((y * 255u / 4096u + checker) & 0xff);
        row[3 * x + 2] = (uint8_t)(((x + y) & 0xff) ^ checker);
    }
}

typedef struct png_file_job {
    FILE *file;
    uint8_t *row;
    char message[CLS_MESSAGE_CAPACITY];
} png_file_job;

static void png_file_error(png_structp png, png_const_charp text) {
    png_file_job *job = png_get_error_ptr(png);
    snprintf(job->message, sizeof job->message, "%s", text);
    png_longjmp(png, 1);
}

static void png_file_warning(png_structp png, png_const_charp text) { (void)png, (void)text; }

cls_status cls_test_write_large_png(const char *path, uint32_t width, uint32_t height, cls_message *message) {
    png_file_job job = {0};
    job.file = fopen(path, "wb");
    job.row = malloc((size_t)width * 3);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &job, png_file_error, png_file_warning);
    png_infop info = png == NULL ? NULL : png_create_info_struct(png);
    if (job.file == NULL || job.row == NULL || info == NULL) {
        if (job.file != NULL) fclose(job.file);
        free(job.row);
        png_destroy_write_struct(&png, &info);
        cls_message_set(message, "cannot open the file or allocate a row");
        return CLS_OUT_OF_MEMORY;
    }
    cls_status status = CLS_OK;
    if (setjmp(png_jmpbuf(png)) != 0) {
        cls_message_set(message, job.message);
        status = CLS_CORRUPT;
    } else {
        png_init_io(png, job.file);
        png_set_compression_level(png, 1);
        png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (uint32_t y = 0; y < height; y++) {
            fill_row(job.row, width, y);
            png_write_row(png, job.row);
        }
        png_write_end(png, NULL);
    }
    png_destroy_write_struct(&png, &info);
    free(job.row);
    if (fclose(job.file) != 0 && status == CLS_OK) {
        cls_message_set(message, "cannot write the file");
        status = CLS_CORRUPT;
    }
    return status;
}

// Gives row `y` of the picture being written (width * 3 bytes) into `row`.
typedef void (*row_source)(const void *context, uint8_t *row, uint32_t width, uint32_t y);

static void synthetic_row(const void *context, uint8_t *row, uint32_t width, uint32_t y) {
    (void)context;
    fill_row(row, width, y);
}

static void copied_row(const void *context, uint8_t *row, uint32_t width, uint32_t y) {
    memcpy(row, (const uint8_t *)context + (size_t)y * width * 3, (size_t)width * 3);
}

// One deflate RGB TIFF, strips or tiles, holding one band of rows (a tile's height) at a time.
static cls_status write_tiff(const char *path, uint32_t width, uint32_t height, uint32_t rows_per_strip,
                             uint32_t tile_size, uint16_t orientation, row_source source, const void *context,
                             cls_message *message) {
    const uint32_t band = tile_size > 0 ? tile_size : 1;
    TIFF *tiff = TIFFOpen(path, "w");
    uint8_t *rows = calloc((size_t)width * band, 3);
    uint8_t *tile = tile_size > 0 ? malloc((size_t)tile_size * tile_size * 3) : NULL;
    if (tiff == NULL || rows == NULL || (tile_size > 0 && tile == NULL)) {
        if (tiff != NULL) TIFFClose(tiff);
        free(rows), free(tile);
        cls_message_set(message, "cannot open the file or allocate a band");
        return CLS_OUT_OF_MEMORY;
    }
    TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
    TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tiff, TIFFTAG_ORIENTATION, orientation);
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    int ok = 1;
    if (tile_size > 0) {
        TIFFSetField(tiff, TIFFTAG_TILEWIDTH, tile_size);
        TIFFSetField(tiff, TIFFTAG_TILELENGTH, tile_size);
        for (uint32_t top = 0; ok && top < height; top += tile_size) {
            memset(rows, 0, (size_t)width * band * 3);
            for (uint32_t y = 0; y < tile_size && top + y < height; y++) source(context, rows + (size_t)y * width * 3, width, top + y);
            for (uint32_t left = 0; ok && left < width; left += tile_size) {
                memset(tile, 0, (size_t)tile_size * tile_size * 3);
                for (uint32_t y = 0; y < tile_size; y++) {
                    uint32_t columns = width - left < tile_size ? width - left : tile_size;
                    memcpy(tile + (size_t)y * tile_size * 3, rows + ((size_t)y * width + left) * 3, (size_t)columns * 3);
                }
                ok = TIFFWriteTile(tiff, tile, left, top, 0, 0) >= 0;
            }
        }
    } else {
        TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, rows_per_strip);
        for (uint32_t y = 0; ok && y < height; y++) {
            source(context, rows, width, y);
            ok = TIFFWriteScanline(tiff, rows, y, 0) == 1;
        }
    }
    TIFFClose(tiff);
    free(rows), free(tile);
    if (!ok) {
        cls_message_set(message, "libtiff could not write the image");
        return CLS_CORRUPT;
    }
    return CLS_OK;
}

cls_status cls_test_write_large_tiff(const char *path, uint32_t width, uint32_t height, uint32_t tile_size,
                                     cls_message *message) {
    return write_tiff(path, width, height, 64, tile_size, ORIENTATION_TOPLEFT, synthetic_row, NULL, message);
}

cls_status cls_test_encode_tiff(const uint8_t *rgb, uint32_t width, uint32_t height, uint32_t rows_per_strip,
                                uint32_t tile_size, uint16_t orientation, const char *path, cls_message *message) {
    return write_tiff(path, width, height, rows_per_strip, tile_size, orientation, copied_row, rgb, message);
}
