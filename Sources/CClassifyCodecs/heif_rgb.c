#include "heif_rgb.h"

#include <string.h>

#include "cls_one_cpu.h"

// libheif's codes say which kind of failure it was; running out of data has its own subcode.
cls_status heif_rgb_failure(struct heif_error error, cls_message *message) {
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

cls_status heif_rgb_decode(const struct heif_image_handle *handle, cls_heif_coding coding, heif_rgb *picture,
                           cls_message *message) {
    memset(picture, 0, sizeof *picture);
    const int has_alpha = heif_image_handle_has_alpha_channel(handle);
    // 8-bit pictures are asked for as planar RGB: libheif gives the same values as interleaved
    // RGB(A) (compared on every fixture and a 12-MP photo), but its interleaving step holds a
    // second full-size copy, which planar output skips (12-MP HEIC: 59 MB instead of 93 MB at the
    // peak). Deeper ones stay interleaved, where libheif reduces them to 8 bits.
    const int planar = heif_image_handle_get_luma_bits_per_pixel(handle) <= 8 &&
                       heif_image_handle_get_chroma_bits_per_pixel(handle) <= 8;
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    options->convert_hdr_to_8bit = 1;
    decode_call call = {
        .handle = handle,
        .chroma = planar ? heif_chroma_444 : has_alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
        .options = options,
    };
    // dav1d starts as many threads as the calling thread may use CPUs, and with two or more it
    // decodes in frame-threading mode, whose buffers hold the whole frame's coefficients: a 12-MP
    // AVIF cost 104 MB instead of 62 (2 CPUs; more with more), for a still picture that has no other
    // frame to overlap with. libheif 1.15 passes dav1d no thread count, so the decode runs with the
    // calling thread held to the CPU it is on, which dav1d reads as one (docs/performance.md,
    // "Memory of index on a mixed library"). Jobs decoding in parallel each keep their own CPU.
    if (coding == CLS_HEIF_AV1) {
        cls_run_on_one_cpu(decode, &call);
    } else {
        decode(&call);
    }
    heif_decoding_options_free(options);
    if (call.error.code != heif_error_Ok) return heif_rgb_failure(call.error, message);

    const int width = heif_image_handle_get_width(handle), height = heif_image_handle_get_height(handle);
    *picture = (heif_rgb){
        .image = call.image,
        .width = width > 0 ? (uint32_t)width : 0,
        .height = height > 0 ? (uint32_t)height : 0,
        .has_alpha = has_alpha,
        .interleaved = !planar,
    };
    static const enum heif_channel planar_channels[] = {heif_channel_R, heif_channel_G, heif_channel_B, heif_channel_Alpha};
    int consistent = width > 0 && height > 0;
    for (int c = 0; c < (planar ? 3 + has_alpha : 1); c++) {
        enum heif_channel channel = planar ? planar_channels[c] : heif_channel_interleaved;
        picture->planes[c] = heif_image_get_plane_readonly(call.image, channel, &picture->strides[c]);
        consistent = consistent && picture->planes[c] != NULL && heif_image_get_width(call.image, channel) == width &&
                     heif_image_get_height(call.image, channel) == height &&
                     heif_image_get_bits_per_pixel_range(call.image, channel) == 8;
    }
    if (!consistent) {
        heif_rgb_release(picture);
        cls_message_set(message, "libheif returned an image of another size or depth than announced");
        return CLS_CORRUPT;
    }
    return CLS_OK;
}

const uint8_t *heif_rgb_row(const heif_rgb *picture, uint32_t y, uint8_t *scratch) {
    if (picture->interleaved) return picture->planes[0] + (size_t)y * (size_t)picture->strides[0];
    const size_t channels = picture->has_alpha ? 4 : 3;
    for (size_t c = 0; c < channels; c++) {
        const uint8_t *plane = picture->planes[c] + (size_t)y * (size_t)picture->strides[c];
        for (uint32_t x = 0; x < picture->width; x++) scratch[channels * x + c] = plane[x];
    }
    return scratch;
}

void heif_rgb_release(heif_rgb *picture) {
    if (picture->image != NULL) heif_image_release(picture->image);
    memset(picture, 0, sizeof *picture);
}
