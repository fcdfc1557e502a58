#include "cls_heif_decoder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

#include "alpha_compositing.h"
#include "cls_row_reduction.h"
#include "heif_grid_check.h"
#include "heif_rgb.h"
#include "heif_tiled_grid.h"

struct cls_heif_decoder {
    struct heif_context *context;
    cls_heif_coding coding;
    struct heif_image_handle *primary;
    /// The handle to decode: the primary image or one of its thumbnails (owned separately).
    struct heif_image_handle *chosen;
    /// 1, 2, 4 or 8: read_pixels reduces the decoded image by this factor (cls_row_reduction.h).
    uint32_t factor;
    uint32_t output_width;
    uint32_t output_height;
    /// Set by cls_heif_decoder_crop: only this rectangle of the reduced picture is written.
    cls_output_crop crop;
    /// The file's items (heif_items.h), read once for the grid check and the tile plan, released
    /// when open ends.
    heif_items items;
    int has_items;
    /// Set when the primary image is a grid decoded tile by tile (heif_tiled_grid.h).
    int tiled;
    heif_tiled_grid grid;
    /// Threads a decode may use (cls_heif_decoder_set_threads).
    int threads;
};

static pthread_once_t initialized = PTHREAD_ONCE_INIT;
// heif_init loads plugins in libheif 1.14 and later; it is reference counted and we never
// deinitialize, since decoders may run until the process ends.
static void initialize_libheif(void) { heif_init(NULL); }

static enum heif_compression_format compression_for(cls_heif_coding coding) {
    return coding == CLS_HEIF_AV1 ? heif_compression_AV1 : heif_compression_HEVC;
}

static const char *coding_name(cls_heif_coding coding) { return coding == CLS_HEIF_AV1 ? "AVIF (AV1)" : "HEIC (HEVC)"; }

int cls_heif_has_decoder(cls_heif_coding coding) {
    pthread_once(&initialized, initialize_libheif);
    return heif_have_decoder_for_format(compression_for(coding));
}

cls_status cls_heif_decoder_open(const uint8_t *data, size_t size, cls_heif_coding coding,
                                 uint64_t maximum_pixel_count,
                                 uint32_t thumbnail_minimum_short_side, uint32_t minimum_short_side,
                                 cls_heif_grids grids, cls_heif_decoder **decoder, cls_image_info *info,
                                 cls_message *message) {
    *decoder = NULL;
    memset(info, 0, sizeof *info);
    if (data == NULL || size == 0) {
        cls_message_set(message, "no HEIF data");
        return CLS_INVALID_ARGUMENT;
    }
    if (!cls_heif_has_decoder(coding)) {
        char text[CLS_MESSAGE_CAPACITY];
        snprintf(text, sizeof text, "%s decoder missing from this libheif %s", coding_name(coding),
                 heif_get_version());
        cls_message_set(message, text);
        return CLS_DECODER_MISSING;
    }
    // The items are read here once, for the grid check and the tile plan; files whose meta box
    // cannot be read are left to libheif, which says what is wrong.
    heif_items items;
    const int has_items = heif_items_read((span){.at = data, .left = size}, &items);
    if (has_items && !heif_grids_are_whole(&items)) {
        heif_items_free(&items);
        cls_message_set(message, "a tile of the picture's grid has no size, or another size than the others");
        return CLS_CORRUPT;
    }
    cls_heif_decoder *state = calloc(1, sizeof *state);
    if (state != NULL) {
        state->items = items;
        state->has_items = has_items;
    } else if (has_items) {
        heif_items_free(&items);
    }
    if (state == NULL || (state->context = heif_context_alloc()) == NULL) {
        cls_heif_decoder_close(state);
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    state->coding = coding;
    // One thread per image unless the caller allows more (cls_heif_decoder_set_threads).
    state->threads = 1;
    heif_context_set_max_decoding_threads(state->context, 1);
    struct heif_error error = heif_context_read_from_memory_without_copy(state->context, data, size, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(state->context, &state->primary);
    if (error.code != heif_error_Ok) {
        cls_status status = heif_rgb_failure(error, message);
        cls_heif_decoder_close(state);
        return status;
    }
    state->chosen = state->primary;
    // Width and height after the transformations (a rotated image reports its upright size).
    int width = heif_image_handle_get_width(state->primary);
    int height = heif_image_handle_get_height(state->primary);
    info->width = width > 0 ? (uint32_t)width : 0;
    info->height = height > 0 ? (uint32_t)height : 0;
    if (width <= 0 || height <= 0) {
        cls_message_set(message, "the primary image has no size");
        cls_heif_decoder_close(state);
        return CLS_CORRUPT;
    }
    if ((uint64_t)width * (uint64_t)height > maximum_pixel_count) {
        cls_message_set(message, "HEIF dimensions exceed the pixel limit");
        cls_heif_decoder_close(state);
        return CLS_TOO_LARGE;
    }
    if (thumbnail_minimum_short_side > 0 && heif_image_handle_get_number_of_thumbnails(state->primary) > 0) {
        heif_item_id ids[4];
        int count = heif_image_handle_get_list_of_thumbnail_IDs(state->primary, ids, 4);
        for (int i = 0; i < count; i++) {
            struct heif_image_handle *thumbnail = NULL;
            if (heif_image_handle_get_thumbnail(state->primary, ids[i], &thumbnail).code != heif_error_Ok) continue;
            int thumb_width = heif_image_handle_get_width(thumbnail);
            int thumb_height = heif_image_handle_get_height(thumbnail);
            int short_side = thumb_width < thumb_height ? thumb_width : thumb_height;
            if (short_side >= (int)thumbnail_minimum_short_side &&
                (state->chosen == state->primary || thumb_width < heif_image_handle_get_width(state->chosen))) {
                if (state->chosen != state->primary) heif_image_handle_release(state->chosen);
                state->chosen = thumbnail;
            } else {
                heif_image_handle_release(thumbnail);
            }
        }
    }
    uint32_t chosen_width = (uint32_t)heif_image_handle_get_width(state->chosen);
    uint32_t chosen_height = (uint32_t)heif_image_handle_get_height(state->chosen);
    info->orientation = 1;
    if (grids == CLS_HEIF_GRIDS_TILE_BY_TILE && state->chosen == state->primary &&
        !heif_image_handle_has_alpha_channel(state->primary) && state->has_items &&
        heif_tiled_grid_plan(&state->items, coding, &state->grid)) {
        // The grid as stored, its irot and imir left to the orientation; libheif's upright size
        // must be the plan's, or the plan is not the picture libheif sees.
        const int swaps = state->grid.orientation >= 5;
        state->tiled = (swaps ? state->grid.height : state->grid.width) == chosen_width &&
                       (swaps ? state->grid.width : state->grid.height) == chosen_height;
        if (state->tiled) {
            chosen_width = info->width = state->grid.width;
            chosen_height = info->height = state->grid.height;
            info->orientation = state->grid.orientation;
        } else {
            heif_tiled_grid_free(&state->grid);
        }
    }
    state->factor = cls_reduction_factor(chosen_width, chosen_height, minimum_short_side);
    state->output_width = cls_reduced_length(chosen_width, state->factor);
    state->output_height = cls_reduced_length(chosen_height, state->factor);
    info->output_width = state->output_width;
    info->output_height = state->output_height;
    heif_items_free(&state->items);  // the plan points into the file, not into the items
    *decoder = state;
    return CLS_OK;
}

void cls_heif_decoder_set_threads(cls_heif_decoder *decoder, int threads) {
    if (decoder == NULL || threads <= 0) return;
    decoder->threads = threads;
    heif_context_set_max_decoding_threads(decoder->context, threads);
}

// The id of the primary image's first metadata item of `kind`, or 0 (libheif never uses 0).
static heif_item_id metadata_id(cls_heif_decoder *decoder, cls_heif_metadata kind) {
    if (decoder == NULL || decoder->primary == NULL) return 0;
    const char *type = kind == CLS_HEIF_METADATA_EXIF ? "Exif" : "mime";
    int count = heif_image_handle_get_number_of_metadata_blocks(decoder->primary, type);
    if (count <= 0) return 0;
    heif_item_id ids[8];
    count = heif_image_handle_get_list_of_metadata_block_IDs(decoder->primary, type, ids, 8);
    for (int i = 0; i < count; i++) {
        if (kind == CLS_HEIF_METADATA_EXIF) return ids[i];
        const char *content_type = heif_image_handle_get_metadata_content_type(decoder->primary, ids[i]);
        if (content_type != NULL && strcmp(content_type, "application/rdf+xml") == 0) return ids[i];
    }
    return 0;
}

size_t cls_heif_decoder_metadata_size(cls_heif_decoder *decoder, cls_heif_metadata kind) {
    heif_item_id id = metadata_id(decoder, kind);
    return id == 0 ? 0 : heif_image_handle_get_metadata_size(decoder->primary, id);
}

cls_status cls_heif_decoder_copy_metadata(cls_heif_decoder *decoder, cls_heif_metadata kind, uint8_t *buffer,
                                          size_t capacity, cls_message *message) {
    heif_item_id id = metadata_id(decoder, kind);
    if (id == 0 || buffer == NULL || heif_image_handle_get_metadata_size(decoder->primary, id) > capacity) {
        cls_message_set(message, "no such metadata block or buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    struct heif_error error = heif_image_handle_get_metadata(decoder->primary, id, buffer);
    return error.code == heif_error_Ok ? CLS_OK : heif_rgb_failure(error, message);
}

cls_status cls_heif_decoder_read_pixels(cls_heif_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message) {
    if (decoder == NULL || rgb == NULL ||
        (size_t)decoder->output_width * decoder->output_height * 3 > capacity) {
        cls_message_set(message, "no decoder or output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    if (decoder->tiled) {
        return heif_tiled_grid_decode(&decoder->grid, decoder->factor, decoder->crop, decoder->threads, rgb, message);
    }
    heif_rgb picture = {0};
    cls_status status = heif_rgb_decode(decoder->chosen, decoder->coding, &picture, message);
    if (status != CLS_OK) return status;

    // libheif has no scaled decoding (1.15): the picture is decoded whole, and its rows are
    // reduced straight from libheif's planes into the output, without a full-size copy.
    const uint32_t width = picture.width, height = picture.height;
    const int has_alpha = picture.has_alpha;
    cls_row_reducer reducer = {0};
    uint8_t *row = malloc((size_t)width * 4);
    uint8_t *composited = has_alpha ? malloc((size_t)width * 3) : NULL;
    if (row == NULL || (has_alpha && composited == NULL) ||
        !cls_row_reducer_init(&reducer, width, height, decoder->factor, rgb)) {
        cls_message_set(message, "out of memory");
        status = CLS_OUT_OF_MEMORY;
    } else {
        cls_row_reducer_crop(&reducer, decoder->crop);
        const int premultiplied = has_alpha && heif_image_handle_is_premultiplied_alpha(decoder->chosen);
        for (uint32_t y = 0; y < height; y++) {
            const uint8_t *source = heif_rgb_row(&picture, y, row);
            if (has_alpha) {
                if (premultiplied) {
                    cls_composite_premultiplied_rgba_onto_white(source, composited, width);
                } else {
                    cls_composite_rgba_onto_white(source, composited, width);
                }
                source = composited;
            }
            cls_row_reducer_add(&reducer, source);
        }
    }
    cls_row_reducer_free(&reducer);
    free(row);
    free(composited);
    heif_rgb_release(&picture);
    return status;
}

cls_status cls_heif_decoder_crop(cls_heif_decoder *decoder, cls_output_crop crop, cls_image_info *info,
                                 cls_message *message) {
    cls_status status = cls_output_crop_set(crop, &decoder->crop, &info->output_width, &info->output_height, message);
    if (status == CLS_OK) {
        decoder->output_width = info->output_width;
        decoder->output_height = info->output_height;
    }
    return status;
}

uint64_t cls_heif_decoder_pixels_held(const cls_heif_decoder *decoder) {
    if (decoder == NULL) return 0;
    if (decoder->tiled) return heif_tiled_grid_pixels_held(&decoder->grid, decoder->threads);
    return (uint64_t)heif_image_handle_get_width(decoder->chosen) * (uint64_t)heif_image_handle_get_height(decoder->chosen);
}

void cls_heif_decoder_close(cls_heif_decoder *decoder) {
    if (decoder == NULL) return;
    heif_tiled_grid_free(&decoder->grid);
    heif_items_free(&decoder->items);
    if (decoder->chosen != NULL && decoder->chosen != decoder->primary) heif_image_handle_release(decoder->chosen);
    if (decoder->primary != NULL) heif_image_handle_release(decoder->primary);
    if (decoder->context != NULL) heif_context_free(decoder->context);
    free(decoder);
}
