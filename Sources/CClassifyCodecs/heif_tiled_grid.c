// Decoding a planned grid (heif_tiled_grid.h) a row of tiles at a time: each tile decoded by
// libheif alone (heif_tile_file.h), pasted into a band, the band reduced into the output.
#include "heif_tiled_grid.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

#include "cls_row_reduction.h"
#include "heif_rgb.h"
#include "heif_tile_file.h"

/// Rows of the band a row of tiles is pasted into: a tile's, or the picture's when a single row
/// of tiles is taller than the output.
static uint32_t band_rows(const heif_tiled_grid *grid) {
    return grid->tile_height < grid->height ? grid->tile_height : grid->height;
}

static uint32_t thread_count(const heif_tiled_grid *grid, int threads) {
    uint32_t count = threads < 1 ? 1 : threads > HEIF_TILE_THREADS ? HEIF_TILE_THREADS : (uint32_t)threads;
    return count < grid->columns ? count : grid->columns;
}

uint64_t heif_tiled_grid_pixels_held(const heif_tiled_grid *grid, int threads) {
    return (uint64_t)thread_count(grid, threads) * grid->tile_width * grid->tile_height +
           (uint64_t)band_rows(grid) * grid->width;
}

/// Decodes tile `index` and copies its first `rows` rows and `columns` columns into `band` (rows
/// of `band_width` RGB pixels) at column `x`.
static cls_status paste_tile(const heif_tiled_grid *grid, uint32_t index, heif_tile_writer *file, uint8_t *row,
                             uint8_t *band, uint32_t band_width, uint32_t x, uint32_t rows, uint32_t columns,
                             cls_message *message) {
    if (!heif_write_tile_file(grid, index, file)) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    struct heif_context *context = heif_context_alloc();
    if (context == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    heif_context_set_max_decoding_threads(context, 1);
    struct heif_image_handle *handle = NULL;
    struct heif_error error = heif_context_read_from_memory_without_copy(context, file->bytes, file->size, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(context, &handle);
    cls_status status = error.code == heif_error_Ok ? CLS_OK : heif_rgb_failure(error, message);
    heif_rgb picture = {0};
    if (status == CLS_OK) status = heif_rgb_decode(handle, grid->coding, &picture, message);
    if (status == CLS_OK && (picture.width != grid->tile_width || picture.height != grid->tile_height || picture.has_alpha)) {
        cls_message_set(message, "a tile of the picture's grid decoded to another size than its grid says");
        status = CLS_CORRUPT;
    }
    for (uint32_t y = 0; status == CLS_OK && y < rows; y++) {
        memcpy(band + ((size_t)y * band_width + x) * 3, heif_rgb_row(&picture, y, row), (size_t)columns * 3);
    }
    heif_rgb_release(&picture);
    if (handle != NULL) heif_image_handle_release(handle);
    heif_context_free(context);
    return status;
}

/// One thread's share of a row of tiles: every `stride`-th column from `first`, pasted into the
/// band; its own tile file and row scratch, kept from row to row.
typedef struct row_part {
    const heif_tiled_grid *grid;
    uint8_t *band;
    uint32_t tile_row, rows, first, stride;
    uint64_t x0, x1;
    heif_tile_writer file;
    uint8_t *row;
    cls_status status;
    cls_message message;
} row_part;

static void *paste_row_part(void *context) {
    row_part *part = context;
    const heif_tiled_grid *grid = part->grid;
    for (uint32_t c = part->first; part->status == CLS_OK && c < grid->columns; c += part->stride) {
        const uint32_t left = c * grid->tile_width;
        const uint32_t columns = grid->width - left < grid->tile_width ? grid->width - left : grid->tile_width;
        if (left >= part->x1 || left + columns <= part->x0) continue;  // no output pixel needs it
        part->status = paste_tile(grid, part->tile_row * grid->columns + c, &part->file, part->row, part->band,
                                  grid->width, left, part->rows, columns, &part->message);
    }
    return NULL;
}

/// Decodes one row of tiles on `count` threads (the caller's and count - 1 more); a thread that
/// cannot start leaves its share to the caller. The first failure, in column order, is the result.
static cls_status paste_row(row_part *parts, uint32_t count, cls_message *message) {
    pthread_t threads[HEIF_TILE_THREADS];
    int started[HEIF_TILE_THREADS] = {0};
    for (uint32_t t = 1; t < count; t++) started[t] = pthread_create(&threads[t], NULL, paste_row_part, &parts[t]) == 0;
    paste_row_part(&parts[0]);
    for (uint32_t t = 1; t < count; t++) {
        if (started[t]) {
            pthread_join(threads[t], NULL);
        } else {
            paste_row_part(&parts[t]);
        }
    }
    for (uint32_t t = 0; t < count; t++) {
        if (parts[t].status != CLS_OK) {
            *message = parts[t].message;
            return parts[t].status;
        }
    }
    return CLS_OK;
}

cls_status heif_tiled_grid_decode(const heif_tiled_grid *grid, uint32_t factor, cls_output_crop crop, int threads,
                                  uint8_t *rgb, cls_message *message) {
    // The full-size columns and rows the output needs: those of the crop's blocks.
    uint64_t x0 = 0, x1 = grid->width, y0 = 0, y1 = grid->height;
    if (crop.width > 0) {
        x0 = (uint64_t)crop.x * factor;
        y0 = (uint64_t)crop.y * factor;
        x1 = (uint64_t)(crop.x + crop.width) * factor < x1 ? (uint64_t)(crop.x + crop.width) * factor : x1;
        y1 = (uint64_t)(crop.y + crop.height) * factor < y1 ? (uint64_t)(crop.y + crop.height) * factor : y1;
    }
    const uint32_t count = thread_count(grid, threads);
    row_part parts[HEIF_TILE_THREADS];
    memset(parts, 0, sizeof parts);
    cls_row_reducer reducer = {0};
    uint8_t *band = calloc((size_t)band_rows(grid) * grid->width, 3);
    int allocated = band != NULL && cls_row_reducer_init(&reducer, grid->width, grid->height, factor, rgb);
    for (uint32_t t = 0; t < count; t++) {
        parts[t] = (row_part){.grid = grid, .band = band, .first = t, .stride = count, .x0 = x0, .x1 = x1};
        parts[t].row = malloc((size_t)grid->tile_width * 4);
        allocated = allocated && parts[t].row != NULL;
    }
    cls_status status = CLS_OK;
    if (!allocated) {
        cls_message_set(message, "out of memory");
        status = CLS_OUT_OF_MEMORY;
    } else {
        cls_row_reducer_crop(&reducer, crop);
    }
    for (uint32_t r = 0; status == CLS_OK && r < grid->rows; r++) {
        const uint32_t top = r * grid->tile_height;
        if (top >= y1) break;  // the rows below add nothing to the output
        const uint32_t rows = grid->height - top < grid->tile_height ? grid->height - top : grid->tile_height;
        // A row of tiles above the crop is fed as whatever the band holds: its sums are never written.
        if (top + rows > y0) {
            for (uint32_t t = 0; t < count; t++) {
                parts[t].tile_row = r;
                parts[t].rows = rows;
            }
            status = paste_row(parts, count, message);
        }
        for (uint32_t y = 0; status == CLS_OK && y < rows; y++) {
            cls_row_reducer_add(&reducer, band + (size_t)y * grid->width * 3);
        }
    }
    cls_row_reducer_free(&reducer);
    free(band);
    for (uint32_t t = 0; t < count; t++) {
        free(parts[t].row);
        free(parts[t].file.bytes);
    }
    return status;
}
