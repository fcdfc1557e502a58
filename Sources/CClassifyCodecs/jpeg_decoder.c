#include "cls_jpeg_decoder.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "jpeg_error_manager.h"
#include "jpeg_coefficient_output.h"
#include "jpeg_huffman_decoder.h"

#include <jerror.h>

// libjpeg-turbo decodes Huffman data on a fast path whenever at least 512 bytes per block of an
// MCU are buffered, and that path turns an invalid Huffman code into a zero coefficient without
// a warning: a file with damaged entropy data then decodes to a plausible-looking wrong picture.
// Handing libjpeg the data in chunks smaller than that keeps it on the checked path, which warns
// (JWRN_HUFF_BAD_CODE, turned into CLS_CORRUPT). Measured cost: about 5-7% of the decoding time
// of a 12-megapixel photo, much less of a whole classification. Sequential files take our own
// Huffman decoder instead (jpeg_huffman_decoder.h), which checks as much, reads the data in place
// and passes the coefficients nothing reads (1/8 scale, crops, skipped rows) several at a time.
enum { CLS_JPEG_SOURCE_CHUNK = 256 };

/// Pixels decoded around a crop so that chroma upsampling sees the same neighbours as in a whole decode.
enum { CLS_JPEG_CROP_MARGIN = 16 };

/// A memory source that hands libjpeg the data CLS_JPEG_SOURCE_CHUNK bytes at a time.
typedef struct cls_jpeg_chunked_source {
    struct jpeg_source_mgr library;
    const uint8_t *data;
    size_t size;
    size_t offset;
} cls_jpeg_chunked_source;

struct cls_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    cls_jpeg_error_manager errors;
    struct jpeg_progress_mgr progress;
    cls_jpeg_chunked_source source;
    /// The file holds CMYK or YCCK; libjpeg hands us CMYK and we convert to RGB ourselves.
    int four_channel_ink;
    /// Adobe applications write CMYK inverted (0 = full ink); their files carry an APP14 marker.
    int ink_inverted;
    /// Set by cls_jpeg_decoder_crop: only this rectangle of the (scaled) output is produced
    /// (width 0: all of it).
    cls_output_crop crop;
    /// The scale open chose, for reading the header again when libjpeg decodes the file a second time.
    unsigned int scale_denominator;
    /// Set by our Huffman decoder when it leaves the file to libjpeg's.
    int huffman_declined;
    /// Decode with libjpeg's Huffman decoder only (after a decline, or asked for).
    int library_huffman_only;
    /// Our Huffman decoder took the scan of the last decoding pass.
    int huffman_ours;
    /// Our Huffman decoder without its BMI2 loop (tests).
    int huffman_baseline_only;
};

// The decoder struct lives on the heap and only pointers to it are used after setjmp, so no
// automatic variable changed between setjmp and longjmp is read afterwards.

// libjpeg calls the progress monitor between units of input work, including once per
// marker/scan while a progressive file is absorbed in jpeg_start_decompress, which makes it
// the place to stop files that would otherwise keep us busy for a very long time.
static void limit_scan_count(j_common_ptr common) {
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    if (cinfo->input_scan_number > CLS_JPEG_MAXIMUM_SCAN_COUNT) {
        cls_jpeg_fail(common, CLS_CORRUPT, "JPEG has more than 1000 scans");
    }
}

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean source_fill(j_decompress_ptr cinfo) {
    cls_jpeg_chunked_source *source = (cls_jpeg_chunked_source *)cinfo->src;
    if (source->offset >= source->size) {
        // As jpeg_mem_src does: warn (which our error manager turns into CLS_TRUNCATED) and
        // insert an end-of-image marker.
        static const JOCTET end_of_image[2] = {0xFF, JPEG_EOI};
        WARNMS(cinfo, JWRN_JPEG_EOF);
        source->library.next_input_byte = end_of_image;
        source->library.bytes_in_buffer = 2;
        return TRUE;
    }
    size_t count = source->size - source->offset;
    if (count > CLS_JPEG_SOURCE_CHUNK) count = CLS_JPEG_SOURCE_CHUNK;
    source->library.next_input_byte = source->data + source->offset;
    source->library.bytes_in_buffer = count;
    source->offset += count;
    return TRUE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *library = cinfo->src;
    if (count <= 0) return;
    while ((size_t)count > library->bytes_in_buffer) {
        count -= (long)library->bytes_in_buffer;
        (void)source_fill(cinfo);
    }
    library->next_input_byte += count;
    library->bytes_in_buffer -= (size_t)count;
}

static void use_chunked_source(cls_jpeg_decoder *decoder, const uint8_t *data, size_t size) {
    cls_jpeg_chunked_source *source = &decoder->source;
    source->library.init_source = source_init;
    source->library.fill_input_buffer = source_fill;
    source->library.skip_input_data = source_skip;
    source->library.resync_to_restart = jpeg_resync_to_restart;
    source->library.term_source = source_term;
    source->library.next_input_byte = NULL;
    source->library.bytes_in_buffer = 0;
    source->data = data;
    source->size = size;
    source->offset = 0;
    decoder->cinfo.src = &source->library;
}

// Our Huffman decoder read the scan in place; libjpeg reads on from the marker after it.
static void resume_source_at(j_decompress_ptr cinfo, size_t offset) {
    cls_jpeg_chunked_source *source = (cls_jpeg_chunked_source *)cinfo->src;
    source->offset = offset;
    source->library.next_input_byte = source->data + offset;
    source->library.bytes_in_buffer = 0;
}

static void choose_scale(struct jpeg_decompress_struct *cinfo, uint32_t minimum_short_side) {
    static const unsigned int denominators[] = {8, 4, 2, 1};
    cinfo->scale_num = 1;
    cinfo->scale_denom = 1;
    if (minimum_short_side > 0) {
        for (size_t i = 0; i < sizeof denominators / sizeof denominators[0]; i++) {
            cinfo->scale_denom = denominators[i];
            jpeg_calc_output_dimensions(cinfo);
            JDIMENSION short_side = cinfo->output_width < cinfo->output_height
                                        ? cinfo->output_width
                                        : cinfo->output_height;
            if (short_side >= minimum_short_side) return;
        }
    }
    // Full size: either requested, or even 1/2 would fall below the minimum.
    cinfo->scale_denom = 1;
    jpeg_calc_output_dimensions(cinfo);
}

// APP1 carries both EXIF ("Exif\0\0") and XMP ("http://ns.adobe.com/xap/1.0/\0", XMP
// Specification Part 3, 1.1.3); the first segment of each kind counts.
static void find_metadata(struct jpeg_decompress_struct *cinfo, cls_jpeg_header *header) {
    static const char exif_prefix[6] = {'E', 'x', 'i', 'f', 0, 0};
    static const char xmp_prefix[29] = "http://ns.adobe.com/xap/1.0/";  // 28 characters and the NUL
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1) continue;
        if (header->exif == NULL && marker->data_length >= sizeof exif_prefix &&
            memcmp(marker->data, exif_prefix, sizeof exif_prefix) == 0) {
            header->exif = marker->data + sizeof exif_prefix;
            header->exif_size = marker->data_length - sizeof exif_prefix;
        } else if (header->xmp == NULL && marker->data_length >= sizeof xmp_prefix &&
                   memcmp(marker->data, xmp_prefix, sizeof xmp_prefix) == 0) {
            header->xmp = marker->data + sizeof xmp_prefix;
            header->xmp_size = marker->data_length - sizeof xmp_prefix;
        }
    }
}

cls_status cls_jpeg_decoder_open(const uint8_t *data, size_t size, uint32_t minimum_short_side,
                                 uint64_t maximum_pixel_count, cls_jpeg_decoder **decoder,
                                 cls_jpeg_header *header, cls_message *message) {
    *decoder = NULL;
    memset(header, 0, sizeof *header);
    if (data == NULL || size == 0 || size > ULONG_MAX) {
        cls_message_set(message, "no JPEG data");
        return CLS_INVALID_ARGUMENT;
    }
    cls_jpeg_decoder *state = calloc(1, sizeof *state);
    if (state == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    state->cinfo.err = cls_jpeg_error_manager_init(&state->errors);
    if (setjmp(state->errors.jump)) {
        // Dimensions are known once the frame header was parsed; report them for TOO_LARGE.
        header->image_width = state->cinfo.image_width;
        header->image_height = state->cinfo.image_height;
        cls_status status = state->errors.status;
        cls_message_set(message, state->errors.message.text);
        cls_jpeg_decoder_close(state);
        return status;
    }
    // CLASSIFY_JPEG_HUFFMAN=libjpeg: libjpeg's own Huffman decoder everywhere, to compare the two
    // or to step around ours should a file ever need it.
    const char *huffman = getenv("CLASSIFY_JPEG_HUFFMAN");
    state->library_huffman_only = huffman != NULL && strcmp(huffman, "libjpeg") == 0;
    jpeg_create_decompress(&state->cinfo);
    state->progress.progress_monitor = limit_scan_count;
    state->cinfo.progress = &state->progress;
    use_chunked_source(state, data, size);
    jpeg_save_markers(&state->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&state->cinfo, TRUE);

    header->image_width = state->cinfo.image_width;
    header->image_height = state->cinfo.image_height;
    uint64_t pixel_count = (uint64_t)state->cinfo.image_width * state->cinfo.image_height;
    if (pixel_count > maximum_pixel_count) {
        cls_jpeg_fail((j_common_ptr)&state->cinfo, CLS_TOO_LARGE,
                      "JPEG dimensions exceed the pixel limit");
    }

    switch (state->cinfo.jpeg_color_space) {
    case JCS_CMYK:
    case JCS_YCCK:
        state->cinfo.out_color_space = JCS_CMYK;
        state->four_channel_ink = 1;
        state->ink_inverted = state->cinfo.saw_Adobe_marker ? 1 : 0;
        break;
    default:
        // YCbCr, RGB and grayscale all convert to RGB inside libjpeg.
        state->cinfo.out_color_space = JCS_RGB;
        break;
    }
    choose_scale(&state->cinfo, minimum_short_side);
    state->scale_denominator = state->cinfo.scale_denom;

    header->output_width = state->cinfo.output_width;
    header->output_height = state->cinfo.output_height;
    header->scale_denominator = state->cinfo.scale_denom;
    find_metadata(&state->cinfo, header);
    *decoder = state;
    return CLS_OK;
}

cls_status cls_jpeg_decoder_crop(cls_jpeg_decoder *decoder, cls_output_crop crop, cls_jpeg_header *header,
                                 cls_message *message) {
    if (decoder == NULL || header == NULL) {
        cls_message_set(message, "no decoder");
        return CLS_INVALID_ARGUMENT;
    }
    return cls_output_crop_set(crop, &decoder->crop, &header->output_width, &header->output_height, message);
}

// Each output channel is the product of the "paper left over" by the ink and by the black.
static void convert_ink_row(const JSAMPLE *ink, uint8_t *rgb, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++) {
        unsigned int c = ink[4 * x], m = ink[4 * x + 1], y = ink[4 * x + 2], k = ink[4 * x + 3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        rgb[3 * x] = (uint8_t)((c * k + 127) / 255);
        rgb[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
        rgb[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

// Our Huffman decoder reads the scan when it can (jpeg_huffman_decoder.h); `skips_rows`: rows
// will be skipped with jpeg_skip_scanlines.
static void install_huffman_decoder(cls_jpeg_decoder *decoder, int skips_rows) {
    if (decoder->library_huffman_only) return;
    decoder->huffman_ours = cls_jpeg_huffman_install(&decoder->cinfo, decoder->source.data, decoder->source.size, resume_source_at,
                                                     skips_rows, decoder->huffman_baseline_only, &decoder->huffman_declined);
}

// Rows above the crop (less a margin) are skipped, entropy-decoded only; columns outside the iMCUs that
// hold it are neither dequantized nor transformed, and rows below it are never read.
// Called from cls_jpeg_decoder_read_pixels after jpeg_start_decompress, under its setjmp.
static void read_cropped(cls_jpeg_decoder *decoder, uint8_t *rgb) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    size_t row_bytes = (size_t)decoder->crop.width * 3;
    // Chroma upsampling blends each pixel with its neighbours' samples, and libjpeg treats the
    // edges of a cropped or skipped-to area as the picture's edges: decode CLS_JPEG_CROP_MARGIN
    // more pixels on each side (where the picture has them) so the rectangle itself comes out
    // exactly as in a whole decode. libjpeg then widens the columns to whole iMCUs.
    JDIMENSION left = decoder->crop.x > CLS_JPEG_CROP_MARGIN ? decoder->crop.x - CLS_JPEG_CROP_MARGIN : 0;
    JDIMENSION right = decoder->crop.x + decoder->crop.width + CLS_JPEG_CROP_MARGIN;
    if (right > cinfo->output_width) right = cinfo->output_width;
    JDIMENSION top = decoder->crop.y > CLS_JPEG_CROP_MARGIN ? decoder->crop.y - CLS_JPEG_CROP_MARGIN : 0;
    JDIMENSION first_column = left, columns = right - left;
    jpeg_crop_scanline(cinfo, &first_column, &columns);
    JDIMENSION shift = decoder->crop.x - first_column;
    if (first_column > decoder->crop.x || columns < shift + decoder->crop.width) {
        cls_jpeg_fail((j_common_ptr)cinfo, CLS_INVALID_ARGUMENT, "JPEG crop moved past the rectangle");
    }
    install_huffman_decoder(decoder, top > 0);
    if (top > 0 && jpeg_skip_scanlines(cinfo, top) != top) {
        cls_jpeg_fail((j_common_ptr)cinfo, CLS_CORRUPT, "JPEG decoder could not skip rows");
    }
    int channels = decoder->four_channel_ink ? 4 : 3;
    JSAMPARRAY row = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, columns * channels, 1);
    for (JDIMENSION y = top; y < decoder->crop.y + decoder->crop.height; y++) {
        if (jpeg_read_scanlines(cinfo, row, 1) != 1) {
            cls_jpeg_fail((j_common_ptr)cinfo, CLS_CORRUPT, "JPEG decoder produced no rows");
        }
        if (y < decoder->crop.y) continue;
        uint8_t *out = rgb + (size_t)(y - decoder->crop.y) * row_bytes;
        if (decoder->four_channel_ink) {
            convert_ink_row(row[0] + (size_t)shift * 4, out, decoder->crop.width, decoder->ink_inverted);
        } else {
            memcpy(out, row[0] + (size_t)shift * 3, row_bytes);
        }
    }
    // The rows below the crop are never decoded.
    jpeg_abort_decompress(cinfo);
}

void cls_jpeg_decoder_use_library_huffman(cls_jpeg_decoder *decoder) {
    if (decoder != NULL) decoder->library_huffman_only = 1;
}

void cls_jpeg_decoder_use_baseline_huffman(cls_jpeg_decoder *decoder) {
    if (decoder != NULL) decoder->huffman_baseline_only = 1;
}

int cls_jpeg_decoder_huffman_was_ours(const cls_jpeg_decoder *decoder) {
    return decoder != NULL && decoder->huffman_ours;
}

// One decoding pass into `rgb`, whose size read_pixels has checked.
static cls_status decode_pixels(cls_jpeg_decoder *decoder, uint8_t *rgb, size_t capacity, cls_message *message) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    size_t row_bytes = (size_t)cinfo->output_width * 3;
    if (setjmp(decoder->errors.jump)) {
        cls_message_set(message, decoder->errors.message.text);
        return decoder->errors.status;
    }
    jpeg_start_decompress(cinfo);
    decoder->huffman_ours = 0;
    if (decoder->crop.width) {
        read_cropped(decoder, rgb);
        return CLS_OK;
    }
    install_huffman_decoder(decoder, 0);
    if (decoder->huffman_ours) cls_jpeg_coefficient_output_install(cinfo);
    if (cinfo->output_height * row_bytes > capacity) {
        cls_jpeg_fail((j_common_ptr)cinfo, CLS_INVALID_ARGUMENT, "output size changed while decoding");
    }
    if (decoder->four_channel_ink) {
        // Pool memory is released by libjpeg itself, also after an error.
        JSAMPARRAY ink = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                     cinfo->output_width * 4, 1);
        while (cinfo->output_scanline < cinfo->output_height) {
            JDIMENSION row = cinfo->output_scanline;
            if (jpeg_read_scanlines(cinfo, ink, 1) != 1) {
                cls_jpeg_fail((j_common_ptr)cinfo, CLS_CORRUPT, "JPEG decoder produced no rows");
            }
            convert_ink_row(ink[0], rgb + row * row_bytes, cinfo->output_width,
                            decoder->ink_inverted);
        }
    } else {
        enum { ROWS_PER_CALL = 8 };
        JSAMPROW rows[ROWS_PER_CALL];
        while (cinfo->output_scanline < cinfo->output_height) {
            JDIMENSION first = cinfo->output_scanline;
            JDIMENSION count = cinfo->output_height - first;
            if (count > ROWS_PER_CALL) count = ROWS_PER_CALL;
            for (JDIMENSION i = 0; i < count; i++) rows[i] = rgb + (size_t)(first + i) * row_bytes;
            // A return of 0 would mean suspension, which a memory source never asks for;
            // treat it as corruption rather than spinning.
            if (jpeg_read_scanlines(cinfo, rows, count) == 0) {
                cls_jpeg_fail((j_common_ptr)cinfo, CLS_CORRUPT, "JPEG decoder produced no rows");
            }
        }
    }
    jpeg_finish_decompress(cinfo);
    return CLS_OK;
}

// After our Huffman decoder declined: back to the start of the file, the same choices as open.
static cls_status read_header_again(cls_jpeg_decoder *decoder, cls_message *message) {
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->errors.jump)) {
        cls_message_set(message, decoder->errors.message.text);
        return decoder->errors.status;
    }
    jpeg_abort_decompress(cinfo);
    use_chunked_source(decoder, decoder->source.data, decoder->source.size);
    jpeg_read_header(cinfo, TRUE);
    cinfo->out_color_space = decoder->four_channel_ink ? JCS_CMYK : JCS_RGB;
    cinfo->scale_num = 1;
    cinfo->scale_denom = decoder->scale_denominator;
    jpeg_calc_output_dimensions(cinfo);
    return CLS_OK;
}

cls_status cls_jpeg_decoder_read_pixels(cls_jpeg_decoder *decoder, uint8_t *rgb, size_t capacity,
                                        cls_message *message) {
    if (decoder == NULL || rgb == NULL) {
        cls_message_set(message, "no decoder or output buffer");
        return CLS_INVALID_ARGUMENT;
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    JDIMENSION width = decoder->crop.width ? decoder->crop.width : cinfo->output_width;
    JDIMENSION height = decoder->crop.width ? decoder->crop.height : cinfo->output_height;
    size_t row_bytes = (size_t)width * 3;
    if (capacity / row_bytes < height) {
        cls_message_set(message, "output buffer too small");
        return CLS_INVALID_ARGUMENT;
    }
    cls_status status = decode_pixels(decoder, rgb, capacity, message);
    if (status != CLS_OK && decoder->huffman_declined && !decoder->library_huffman_only) {
        // libjpeg decodes the file again alone; its verdict stands, whatever it is.
        decoder->library_huffman_only = 1;
        status = read_header_again(decoder, message);
        if (status == CLS_OK) status = decode_pixels(decoder, rgb, capacity, message);
    }
    return status;
}

void cls_jpeg_decoder_close(cls_jpeg_decoder *decoder) {
    if (decoder == NULL) return;
    // Safe on a never-created (zeroed) struct: libjpeg checks for a memory manager first.
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}
