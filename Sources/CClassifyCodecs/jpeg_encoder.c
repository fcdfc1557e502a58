#include "cls_jpeg_encoder.h"

#include <stdlib.h>

#include "jpeg_error_manager.h"

// JPEG's frame header stores dimensions in 16 bits.
enum { MAXIMUM_SIDE = 65500 };

// Everything that must survive a longjmp lives in this heap object; the entry point only
// keeps an unchanging pointer to it.
typedef struct jpeg_encoder_job {
    struct jpeg_compress_struct cinfo;
    cls_jpeg_error_manager errors;
    unsigned char *output;
    unsigned long output_size;
} jpeg_encoder_job;

static void release_job(jpeg_encoder_job *job) {
    jpeg_destroy_compress(&job->cinfo);
    free(job->output);
    free(job);
}

cls_status cls_jpeg_encode_rgb(const uint8_t *rgb, uint32_t width, uint32_t height, int quality,
                               uint8_t **bytes, size_t *size, cls_message *message) {
    *bytes = NULL;
    *size = 0;
    if (rgb == NULL || width == 0 || height == 0 || width > MAXIMUM_SIDE || height > MAXIMUM_SIDE) {
        cls_message_set(message, "a JPEG holds 1 to 65500 pixels on each side");
        return CLS_INVALID_ARGUMENT;
    }
    if (quality < 1 || quality > 100) {
        cls_message_set(message, "JPEG quality is 1 to 100");
        return CLS_INVALID_ARGUMENT;
    }
    jpeg_encoder_job *job = calloc(1, sizeof *job);
    if (job == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    job->cinfo.err = cls_jpeg_error_manager_init(&job->errors);
    if (setjmp(job->errors.jump)) {
        cls_status status = job->errors.status;
        cls_message_set(message, job->errors.message.text);
        release_job(job);
        return status;
    }
    jpeg_create_compress(&job->cinfo);
    jpeg_mem_dest(&job->cinfo, &job->output, &job->output_size);
    job->cinfo.image_width = width;
    job->cinfo.image_height = height;
    job->cinfo.in_color_space = JCS_RGB;
    job->cinfo.input_components = 3;
    jpeg_set_defaults(&job->cinfo);
    jpeg_set_quality(&job->cinfo, quality, TRUE);
    job->cinfo.optimize_coding = TRUE;
    jpeg_start_compress(&job->cinfo, TRUE);
    size_t row_bytes = (size_t)width * 3;
    while (job->cinfo.next_scanline < job->cinfo.image_height) {
        // libjpeg's row type is not const-qualified, but compression only reads the rows.
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)job->cinfo.next_scanline * row_bytes);
        jpeg_write_scanlines(&job->cinfo, &row, 1);
    }
    jpeg_finish_compress(&job->cinfo);

    *bytes = job->output;
    *size = job->output_size;
    job->output = NULL;
    release_job(job);
    return CLS_OK;
}

void cls_jpeg_free(void *bytes) { free(bytes); }
