#include "cls_test_encoders.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

// Every libjpeg error is fatal here (the options are the test's own): it is formatted into the
// message and the entry point resumes at its setjmp. Warnings are ignored.
typedef struct test_jpeg_errors {
    /// Must stay the first member: libjpeg hands back a pointer to it.
    struct jpeg_error_mgr library;
    jmp_buf jump;
    char text[JMSG_LENGTH_MAX];
} test_jpeg_errors;

static void test_jpeg_error_exit(j_common_ptr cinfo) {
    test_jpeg_errors *errors = (test_jpeg_errors *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, errors->text);
    longjmp(errors->jump, 1);
}

static void test_jpeg_ignore_message(j_common_ptr cinfo) { (void)cinfo; }

// Everything that must survive a longjmp lives in this heap object; the entry point only
// keeps an unchanging pointer to it.
typedef struct jpeg_encode_job {
    struct jpeg_compress_struct cinfo;
    test_jpeg_errors errors;
    unsigned char *output;
    unsigned long output_size;
    jpeg_scan_info *script;
} jpeg_encode_job;

enum { HIGHEST_SUCCESSIVE_APPROXIMATION_BIT = 10 };

// One scan for all DC coefficients, then for every component and every AC coefficient a
// first scan at the coarsest bit position followed by one refinement scan per lower bit.
// Valid per the JPEG spec, but far more scans than any encoder would choose.
static int build_excessive_script(jpeg_encode_job *job, int components) {
    int scans_per_coefficient = HIGHEST_SUCCESSIVE_APPROXIMATION_BIT + 1;
    int count = 1 + components * 63 * scans_per_coefficient;
    job->script = calloc((size_t)count, sizeof *job->script);
    if (job->script == NULL) return 0;
    jpeg_scan_info *scan = job->script;
    scan->comps_in_scan = components;
    for (int c = 0; c < components; c++) scan->component_index[c] = c;
    scan++;
    for (int c = 0; c < components; c++) {
        for (int k = 1; k <= 63; k++) {
            scan->comps_in_scan = 1;
            scan->component_index[0] = c;
            scan->Ss = k;
            scan->Se = k;
            scan->Ah = 0;
            scan->Al = HIGHEST_SUCCESSIVE_APPROXIMATION_BIT;
            scan++;
            for (int high = HIGHEST_SUCCESSIVE_APPROXIMATION_BIT; high >= 1; high--) {
                scan->comps_in_scan = 1;
                scan->component_index[0] = c;
                scan->Ss = k;
                scan->Se = k;
                scan->Ah = high;
                scan->Al = high - 1;
                scan++;
            }
        }
    }
    job->cinfo.scan_info = job->script;
    job->cinfo.num_scans = count;
    return 1;
}

static void configure_color(jpeg_encode_job *job, const cls_test_jpeg_options *options) {
    struct jpeg_compress_struct *cinfo = &job->cinfo;
    switch (options->components) {
    case 1:
        cinfo->in_color_space = JCS_GRAYSCALE;
        break;
    case 4:
        cinfo->in_color_space = JCS_CMYK;
        break;
    default:
        cinfo->in_color_space = JCS_RGB;
        break;
    }
    cinfo->input_components = options->components;
    jpeg_set_defaults(cinfo);
    if (options->components == 4) {
        if (options->ink == CLS_TEST_JPEG_INK_ADOBE_YCCK) {
            jpeg_set_colorspace(cinfo, JCS_YCCK);
        } else {
            jpeg_set_colorspace(cinfo, JCS_CMYK);
            // jpeg_set_colorspace always asks for the Adobe marker with CMYK.
            cinfo->write_Adobe_marker = options->ink == CLS_TEST_JPEG_INK_ADOBE_CMYK;
        }
    }
    if (options->luma_h_sampling > 0 && options->luma_v_sampling > 0) {
        cinfo->comp_info[0].h_samp_factor = options->luma_h_sampling;
        cinfo->comp_info[0].v_samp_factor = options->luma_v_sampling;
        for (int c = 1; c < cinfo->num_components; c++) {
            cinfo->comp_info[c].h_samp_factor = 1;
            cinfo->comp_info[c].v_samp_factor = 1;
        }
    }
    cinfo->restart_interval = options->restart_interval;
    cinfo->optimize_coding = options->optimize_coding ? TRUE : FALSE;
}

static void release_job(jpeg_encode_job *job) {
    jpeg_destroy_compress(&job->cinfo);
    free(job->output);
    free(job->script);
    free(job);
}

cls_status cls_test_encode_jpeg(const cls_test_jpeg_options *options, const uint8_t *pixels,
                                uint8_t **bytes, size_t *size, cls_message *message) {
    *bytes = NULL;
    *size = 0;
    if (options->components != 1 && options->components != 3 && options->components != 4) {
        cls_message_set(message, "components must be 1, 3 or 4");
        return CLS_INVALID_ARGUMENT;
    }
    if (options->app1_size > 65533) {
        cls_message_set(message, "APP1 payload larger than a JPEG segment");
        return CLS_INVALID_ARGUMENT;
    }
    jpeg_encode_job *job = calloc(1, sizeof *job);
    if (job == NULL) {
        cls_message_set(message, "out of memory");
        return CLS_OUT_OF_MEMORY;
    }
    job->cinfo.err = jpeg_std_error(&job->errors.library);
    job->errors.library.error_exit = test_jpeg_error_exit;
    job->errors.library.output_message = test_jpeg_ignore_message;
    if (setjmp(job->errors.jump)) {
        cls_message_set(message, job->errors.text);
        release_job(job);
        return CLS_INVALID_ARGUMENT;
    }
    jpeg_create_compress(&job->cinfo);
    jpeg_mem_dest(&job->cinfo, &job->output, &job->output_size);
    job->cinfo.image_width = options->width;
    job->cinfo.image_height = options->height;
    configure_color(job, options);
    jpeg_set_quality(&job->cinfo, options->quality, TRUE);
    if (options->scans == CLS_TEST_JPEG_PROGRESSIVE) {
        jpeg_simple_progression(&job->cinfo);
    } else if (options->scans == CLS_TEST_JPEG_EXCESSIVE_SCANS) {
        if (!build_excessive_script(job, options->components)) {
            cls_message_set(message, "out of memory");
            release_job(job);
            return CLS_OUT_OF_MEMORY;
        }
    }
    jpeg_start_compress(&job->cinfo, TRUE);
    if (options->app1_size > 0) {
        jpeg_write_marker(&job->cinfo, JPEG_APP0 + 1, options->app1,
                          (unsigned int)options->app1_size);
    }
    size_t row_bytes = (size_t)options->width * (size_t)options->components;
    while (job->cinfo.next_scanline < job->cinfo.image_height) {
        // libjpeg's row type is not const-qualified, but compression only reads the rows.
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)job->cinfo.next_scanline * row_bytes);
        jpeg_write_scanlines(&job->cinfo, &row, 1);
    }
    jpeg_finish_compress(&job->cinfo);

    *bytes = job->output;
    *size = job->output_size;
    job->output = NULL;
    release_job(job);
    return CLS_OK;
}

void cls_test_free(void *bytes) { free(bytes); }
