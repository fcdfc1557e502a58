#include "cls_heif_decoder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libheif/heif.h>

#include "alpha_compositing.h"
#include "cls_one_cpu.h"
#include "cls_row_reduction.h"
#include "heif_grid_check.h"

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

// libheif's codes say which kind of failure it was; running out of data has its own subcode.
static cls_status fail(struct heif_error error, cls_message *message) {
    cls_message_set(message, error.message);
    switch (error.code) {
        case heif_error_Invalid_input:
            return error.subcode == heif_suberror_End_of_data ? CLS_TRUNCATED : CLS_CORRUPT;
        case heif_error_Unsupported_filetype:
        case heif_error_Unsupported_feature:
            return CLS_UNSUPPORTED;
        case heif_error_Memory_allocation_error:
            return CLS_OUT_OF_MEMORY;
        default:
            return CLS_CORRUPT;
    }
}

cls_status cls_heif_decoder_open(const uint8_t *data, size_t size, cls_heif_coding coding,
                                 uint64_t maximum_pixel_count,
                                 uint32_t thumbnail_minimum_short_side, uint32_t minimum_short_side,
                                 cls_heif_decoder **decoder, cls_image_info *info,
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
    if (!cls_heif_grids_are_whole(data, size)) {
        cls_message_set(message, "a tile of the picture's grid has no size, or another size than the others");
        return CLS_CORRUPT;
    }
    cls_heif_decoder *state = calloc(1, sizeof *state);
    if (state == NULL || (state->context = heif_context_alloc()) == NULL) {
        free(state);
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    state->coding = coding;
    // One thread per image unless the caller allows more (cls_heif_decoder_set_threads).
    heif_context_set_max_decoding_threads(state->context, 1);
    struct heif_error error = heif_context_read_from_memory_without_copy(state->context, data, size, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(state->context, &state->primary);
    if (error.code != heif_error_Ok) {
        cls_status status = fail(error, message);
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
    const uint32_t chosen_width = (uint32_t)heif_image_handle_get_width(state->chosen);
    const uint32_t chosen_height = (uint32_t)heif_image_handle_get_height(state->chosen);
    state->factor = cls_reduction_factor(chosen_width, chosen_height, minimum_short_side);
    state->output_width = cls_reduced_length(chosen_width, state->factor);
    state->output_height = cls_reduced_length(chosen_height, state->factor);
    info->output_width = state->output_width;
    info->output_height = state->output_height;
    info->orientation = 1;
    *decoder = state;
    return CLS_OK;
}

void cls_heif_decoder_set_threads(cls_heif_decoder *decoder, int threads) {
    if (decoder != NULL && threads > 0) heif_context_set_max_decoding_threads(decoder->context, threads);
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
    return error.code == heif_error_Ok ? CLS_OK : fail(error, message);
}

// The decoded picture's rows, whichever layout libheif delivered.
typedef struct heif_rows {
    /// Interleaved RGB or RGBA (`interleaved`), or the planes R, G, B (and alpha).
    const uint8_t *planes[4];
    int strides[4];
    int interleaved;
} heif_rows;

// Writes row `y` as interleaved RGB (alpha 0: opaque) or RGBA into `out`; returns the row, which
// for interleaved input is libheif's own.
static const uint8_t *heif_row(const heif_rows *rows, uint32_t y, uint32_t width, int has_alpha, uint8_t *out) {
    if (rows->interleaved) return rows->planes[0] + (size_t)y * (size_t)rows->strides[0];
    const size_t channels = has_alpha ? 4 : 3;
    for (size_t c = 0; c < channels; c++) {
        const uint8_t *plane = rows->planes[c] + (size_t)y * (size_t)rows->strides[c];
        for (uint32_t x = 0; x < width; x++) out[channels * x + c] = plane[x];
    }
    return out;
}

// One heif_decode_image call, packed so that it can run inside cls_run_on_one_cpu.
typedef struct decode_call {
    const struct heif_image_handle *handle;
    enum heif_chroma chroma;
    const struct heif_decoding_options *options;
    struct heif_image *image;
    struct heif_error error;
} decode_call;

static void decode(void *context) {
    decode_call *call = context;
    call->error = heif_decode_image(call->handle, &call->image, heif_colorspace_RGB, call->chroma, call->options);
}

cls_status cls_heif_decoder_read_pixels(cls_heif_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message) {
    if (decoder == NULL || rgb == NULL ||
        (size_t)decoder->output_width * decoder->output_height * 3 > capacity) {
        cls_message_set(message, "no decoder or output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    const int has_alpha = heif_image_handle_has_alpha_channel(decoder->chosen);
    // 8-bit pictures are asked for as planar RGB: libheif gives the same values as interleaved
    // RGB(A) (compared on every fixture and a 12-MP photo), but its interleaving step holds a
    // second full-size copy, which planar output skips (12-MP HEIC: 59 MB instead of 93 MB at the
    // peak). Deeper ones stay interleaved, where libheif reduces them to 8 bits.
    const int planar = heif_image_handle_get_luma_bits_per_pixel(decoder->chosen) <= 8 &&
                       heif_image_handle_get_chroma_bits_per_pixel(decoder->chosen) <= 8;
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    options->convert_hdr_to_8bit = 1;
    decode_call call = {
        .handle = decoder->chosen,
        .chroma = planar ? heif_chroma_444 : has_alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
        .options = options,
    };
    // dav1d starts as many threads as the calling thread may use CPUs, and with two or more it
    // decodes in frame-threading mode, whose buffers hold the whole frame's coefficients: a 12-MP
    // AVIF cost 104 MB instead of 62 (2 CPUs; more with more), for a still picture that has no other
    // frame to overlap with. libheif 1.15 passes dav1d no thread count, so the decode runs with the
    // calling thread held to the CPU it is on, which dav1d reads as one (docs/performance.md,
    // "Memory of index on a mixed library"). Jobs decoding in parallel each keep their own CPU.
    if (decoder->coding == CLS_HEIF_AV1) {
        cls_run_on_one_cpu(decode, &call);
    } else {
        decode(&call);
    }
    heif_decoding_options_free(options);
    struct heif_image *image = call.image;
    if (call.error.code != heif_error_Ok) return fail(call.error, message);

    // libheif has no scaled decoding (1.15): the picture is decoded whole, and its rows are
    // reduced straight from libheif's planes into the output, without a full-size copy.
    const uint32_t width = (uint32_t)heif_image_handle_get_width(decoder->chosen);
    const uint32_t height = (uint32_t)heif_image_handle_get_height(decoder->chosen);
    static const enum heif_channel planar_channels[] = {heif_channel_R, heif_channel_G, heif_channel_B, heif_channel_Alpha};
    heif_rows rows = {.interleaved = !planar};
    int consistent = 1;
    for (int c = 0; c < (planar ? 3 + has_alpha : 1); c++) {
        enum heif_channel channel = planar ? planar_channels[c] : heif_channel_interleaved;
        rows.planes[c] = heif_image_get_plane_readonly(image, channel, &rows.strides[c]);
        consistent = consistent && rows.planes[c] != NULL && heif_image_get_width(image, channel) == (int)width &&
                     heif_image_get_height(image, channel) == (int)height &&
                     heif_image_get_bits_per_pixel_range(image, channel) == 8;
    }
    cls_status status = CLS_OK;
    cls_row_reducer reducer = {0};
    uint8_t *row = malloc((size_t)width * 4);
    uint8_t *composited = has_alpha ? malloc((size_t)width * 3) : NULL;
    if (!consistent) {
        cls_message_set(message, "libheif returned an image of another size or depth than announced");
        status = CLS_CORRUPT;
    } else if (row == NULL || (has_alpha && composited == NULL) ||
               !cls_row_reducer_init(&reducer, width, height, decoder->factor, rgb)) {
        cls_message_set(message, "out of memory");
        status = CLS_OUT_OF_MEMORY;
    } else {
        cls_row_reducer_crop(&reducer, decoder->crop);
        const int premultiplied = has_alpha && heif_image_handle_is_premultiplied_alpha(decoder->chosen);
        for (uint32_t y = 0; y < height; y++) {
            const uint8_t *source = heif_row(&rows, y, width, has_alpha, row);
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
    heif_image_release(image);
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

void cls_heif_decoder_close(cls_heif_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->chosen != NULL && decoder->chosen != decoder->primary) heif_image_handle_release(decoder->chosen);
    if (decoder->primary != NULL) heif_image_handle_release(decoder->primary);
    if (decoder->context != NULL) heif_context_free(decoder->context);
    free(decoder);
}
