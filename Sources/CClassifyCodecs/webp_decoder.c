#include "cls_webp_decoder.h"

#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

#include "alpha_compositing.h"

struct cls_webp_decoder {
    const uint8_t *data;
    size_t size;
    WebPBitstreamFeatures features;
    uint32_t output_width;
    uint32_t output_height;
};

static cls_status status_for(VP8StatusCode code, cls_message *message) {
    switch (code) {
        case VP8_STATUS_NOT_ENOUGH_DATA:
            cls_message_set(message, "the WebP data ends early");
            return CLS_TRUNCATED;
        case VP8_STATUS_OUT_OF_MEMORY:
            cls_message_set(message, "out of memory");
            return CLS_OUT_OF_MEMORY;
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            cls_message_set(message, "a WebP feature libwebp does not support");
            return CLS_UNSUPPORTED;
        case VP8_STATUS_INVALID_PARAM:
            cls_message_set(message, "invalid WebP parameters");
            return CLS_CORRUPT;
        default:
            cls_message_set(message, "malformed WebP bitstream");
            return CLS_CORRUPT;
    }
}

cls_status cls_webp_decoder_open(const uint8_t *data, size_t size, uint32_t minimum_short_side,
                                 uint64_t maximum_pixel_count, cls_webp_decoder **decoder,
                                 cls_image_info *info, cls_message *message) {
    *decoder = NULL;
    memset(info, 0, sizeof *info);
    if (data == NULL || size == 0) {
        cls_message_set(message, "no WebP data");
        return CLS_INVALID_ARGUMENT;
    }
    cls_webp_decoder *state = calloc(1, sizeof *state);
    if (state == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    state->data = data;
    state->size = size;
    VP8StatusCode code = WebPGetFeatures(data, size, &state->features);
    if (code != VP8_STATUS_OK) {
        free(state);
        return status_for(code, message);
    }
    uint32_t width = (uint32_t)state->features.width, height = (uint32_t)state->features.height;
    info->width = width;
    info->height = height;
    if ((uint64_t)width * height > maximum_pixel_count) {
        free(state);
        cls_message_set(message, "WebP dimensions exceed the pixel limit");
        return CLS_TOO_LARGE;
    }
    uint32_t denominator = 1;
    // Lossy WebPs only: a lossless one decodes to the exact pixels a PNG of it would, and its
    // observations must not depend on the container (libwebp's rescaler would differ from ours).
    // VP8L has no cheaper scaled decode anyway; VP8 is rescaled row by row while decoding.
    if (minimum_short_side > 0 && !state->features.has_animation && state->features.format == 1) {
        uint32_t short_side = width < height ? width : height;
        while (denominator < 8 && short_side / (denominator * 2) >= minimum_short_side) denominator *= 2;
    }
    state->output_width = (width + denominator - 1) / denominator;
    state->output_height = (height + denominator - 1) / denominator;
    info->output_width = state->output_width;
    info->output_height = state->output_height;
    info->orientation = 1;
    *decoder = state;
    return CLS_OK;
}

// The first frame of an animation, on its full canvas (the animation decoder applies the
// frame's offset, blending and disposal), as straight RGBA.
static cls_status read_first_frame(cls_webp_decoder *decoder, uint8_t *rgb, cls_message *message) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        cls_message_set(message, "libwebp version mismatch");
        return CLS_UNSUPPORTED;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData webp = {decoder->data, decoder->size};
    WebPAnimDecoder *animation = WebPAnimDecoderNew(&webp, &options);
    if (animation == NULL) {
        cls_message_set(message, "malformed or truncated animated WebP");
        return CLS_CORRUPT;
    }
    WebPAnimInfo animation_info;
    uint8_t *frame = NULL;
    int timestamp = 0;
    cls_status status = CLS_OK;
    if (!WebPAnimDecoderGetInfo(animation, &animation_info) ||
        animation_info.canvas_width != decoder->output_width ||
        animation_info.canvas_height != decoder->output_height) {
        cls_message_set(message, "the animation's canvas differs from its header");
        status = CLS_CORRUPT;
    } else if (!WebPAnimDecoderGetNext(animation, &frame, &timestamp) || frame == NULL) {
        cls_message_set(message, "the first frame of the animated WebP cannot be decoded");
        status = CLS_CORRUPT;
    } else {
        cls_composite_rgba_onto_white(frame, rgb, (size_t)decoder->output_width * decoder->output_height);
    }
    WebPAnimDecoderDelete(animation);
    return status;
}

cls_status cls_webp_decoder_read_pixels(cls_webp_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message) {
    if (decoder == NULL || rgb == NULL ||
        (size_t)decoder->output_width * decoder->output_height * 3 > capacity) {
        cls_message_set(message, "no decoder or output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    if (decoder->features.has_animation) return read_first_frame(decoder, rgb, message);
    const size_t pixel_count = (size_t)decoder->output_width * decoder->output_height;

    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        cls_message_set(message, "libwebp version mismatch");
        return CLS_UNSUPPORTED;
    }
    const int has_alpha = decoder->features.has_alpha;
    uint8_t *rgba = NULL;
    if (has_alpha) {
        rgba = malloc(pixel_count * 4);
        if (rgba == NULL) {
            cls_message_set(message, "out of memory");
            return CLS_OUT_OF_MEMORY;
        }
    }
    if (decoder->output_width != (uint32_t)decoder->features.width ||
        decoder->output_height != (uint32_t)decoder->features.height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)decoder->output_width;
        config.options.scaled_height = (int)decoder->output_height;
    }
    // Decode straight into the caller's buffer (or the RGBA scratch) instead of libwebp's own.
    config.output.colorspace = has_alpha ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = has_alpha ? rgba : rgb;
    config.output.u.RGBA.stride = (int)decoder->output_width * (has_alpha ? 4 : 3);
    config.output.u.RGBA.size = pixel_count * (has_alpha ? 4 : 3);
    VP8StatusCode code = WebPDecode(decoder->data, decoder->size, &config);
    WebPFreeDecBuffer(&config.output);
    cls_status status = CLS_OK;
    if (code != VP8_STATUS_OK) {
        status = status_for(code, message);
    } else if (has_alpha) {
        cls_composite_rgba_onto_white(rgba, rgb, pixel_count);
    }
    free(rgba);
    return status;
}

void cls_webp_decoder_close(cls_webp_decoder *decoder) { free(decoder); }
