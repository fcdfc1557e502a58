#include "cls_gif_decoder.h"

#include <stdlib.h>
#include <string.h>
#include <gif_lib.h>

struct cls_gif_decoder {
    const uint8_t *data;
    size_t size;
    size_t position;
    GifFileType *gif;
    uint64_t maximum_pixel_count;
};

static int read_bytes(GifFileType *gif, GifByteType *buffer, int count) {
    struct cls_gif_decoder *state = gif->UserData;
    if (count <= 0 || state->position >= state->size) return 0;
    size_t available = state->size - state->position;
    size_t length = (size_t)count < available ? (size_t)count : available;
    memcpy(buffer, state->data + state->position, length);
    state->position += length;
    return (int)length;
}

static cls_status fail(int error, cls_message *message) {
    const char *text = GifErrorString(error);
    cls_message_set(message, text != NULL ? text : "malformed GIF");
    switch (error) {
        case D_GIF_ERR_READ_FAILED:
        case D_GIF_ERR_EOF_TOO_SOON:
            return CLS_TRUNCATED;
        case D_GIF_ERR_NOT_ENOUGH_MEM:
            return CLS_OUT_OF_MEMORY;
        default:
            return CLS_CORRUPT;
    }
}

cls_status cls_gif_decoder_open(const uint8_t *data, size_t size, uint64_t maximum_pixel_count,
                                cls_gif_decoder **decoder, cls_image_info *info, cls_message *message) {
    *decoder = NULL;
    memset(info, 0, sizeof *info);
    if (data == NULL || size == 0) {
        cls_message_set(message, "no GIF data");
        return CLS_INVALID_ARGUMENT;
    }
    cls_gif_decoder *state = calloc(1, sizeof *state);
    if (state == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    state->data = data;
    state->size = size;
    state->maximum_pixel_count = maximum_pixel_count;
    int error = 0;
    state->gif = DGifOpen(state, read_bytes, &error);
    if (state->gif == NULL) {
        free(state);
        return fail(error, message);
    }
    uint32_t width = (uint32_t)state->gif->SWidth, height = (uint32_t)state->gif->SHeight;
    info->width = width;
    info->height = height;
    if (width == 0 || height == 0) {
        cls_message_set(message, "the GIF's screen has no size");
        cls_gif_decoder_close(state);
        return CLS_CORRUPT;
    }
    if ((uint64_t)width * height > maximum_pixel_count) {
        cls_message_set(message, "GIF dimensions exceed the pixel limit");
        cls_gif_decoder_close(state);
        return CLS_TOO_LARGE;
    }
    info->output_width = width;
    info->output_height = height;
    info->orientation = 1;
    *decoder = state;
    return CLS_OK;
}

// Reads one extension's blocks; returns the transparent colour index a graphics control
// extension sets (or `transparent` unchanged), -2 on a read error.
static int read_extension(GifFileType *gif, int transparent) {
    int code = 0;
    GifByteType *block = NULL;
    if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return -2;
    if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] >= 4) {
        GraphicsControlBlock control;
        if (DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK) transparent = control.TransparentColor;
    }
    while (block != NULL) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return -2;
    }
    return transparent;
}

// Rows of an interlaced frame arrive in four passes: every 8th row from 0, every 8th from 4,
// every 4th from 2, every 2nd from 1 (GIF89a, appendix E).
static uint32_t interlaced_row(uint32_t index, uint32_t height) {
    static const uint32_t starts[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; pass++) {
        uint32_t count = starts[pass] < height ? (height - starts[pass] + steps[pass] - 1) / steps[pass] : 0;
        if (index < count) return starts[pass] + index * steps[pass];
        index -= count;
    }
    return height;
}

cls_status cls_gif_decoder_read_pixels(cls_gif_decoder *decoder, uint8_t *rgb, size_t capacity,
                                       cls_message *message) {
    if (decoder == NULL || rgb == NULL ||
        (size_t)decoder->gif->SWidth * (size_t)decoder->gif->SHeight * 3 > capacity) {
        cls_message_set(message, "no decoder or output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    GifFileType *gif = decoder->gif;
    const uint32_t screen_width = (uint32_t)gif->SWidth, screen_height = (uint32_t)gif->SHeight;
    int transparent = NO_TRANSPARENT_COLOR;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) return fail(gif->Error, message);
        if (type == TERMINATE_RECORD_TYPE) {
            cls_message_set(message, "the GIF ends without an image");
            return CLS_CORRUPT;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            transparent = read_extension(gif, transparent);
            if (transparent == -2) return fail(gif->Error, message);
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) return fail(gif->Error, message);
        break;
    }
    const GifImageDesc *frame = &gif->Image;
    const ColorMapObject *colors = frame->ColorMap != NULL ? frame->ColorMap : gif->SColorMap;
    if (colors == NULL) {
        cls_message_set(message, "the GIF's first frame has no colour table");
        return CLS_CORRUPT;
    }
    if (frame->Width <= 0 || frame->Height <= 0 || frame->Left < 0 || frame->Top < 0 ||
        (uint64_t)frame->Width * (uint64_t)frame->Height > decoder->maximum_pixel_count) {
        cls_message_set(message, "the GIF's first frame has an impossible size");
        return CLS_CORRUPT;
    }
    memset(rgb, 255, (size_t)screen_width * screen_height * 3);
    GifPixelType *line = malloc((size_t)frame->Width);
    if (line == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    const uint32_t frame_width = (uint32_t)frame->Width, frame_height = (uint32_t)frame->Height;
    for (uint32_t index = 0; index < frame_height; index++) {
        if (DGifGetLine(gif, line, frame->Width) == GIF_ERROR) {
            free(line);
            return fail(gif->Error, message);
        }
        uint32_t row = frame->Interlace ? interlaced_row(index, frame_height) : index;
        uint64_t y = (uint64_t)frame->Top + row;
        if (y >= screen_height) continue;
        for (uint32_t x = 0; x < frame_width; x++) {
            uint64_t column = (uint64_t)frame->Left + x;
            if (column >= screen_width) break;
            int color = line[x];
            if (color == transparent) continue;
            uint8_t *out = rgb + ((size_t)y * screen_width + (size_t)column) * 3;
            if (color < colors->ColorCount) {
                out[0] = colors->Colors[color].Red;
                out[1] = colors->Colors[color].Green;
                out[2] = colors->Colors[color].Blue;
            } else {
                out[0] = out[1] = out[2] = 0;  // an index past the table: black, as browsers draw it
            }
        }
    }
    free(line);
    return CLS_OK;
}

void cls_gif_decoder_close(cls_gif_decoder *decoder) {
    if (decoder == NULL) return;
    int error = 0;
    if (decoder->gif != NULL) DGifCloseFile(decoder->gif, &error);
    free(decoder);
}
