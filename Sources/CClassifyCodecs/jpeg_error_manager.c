#include "jpeg_error_manager.h"

#include <jerror.h>

void cls_jpeg_fail(j_common_ptr cinfo, cls_status status, const char *text) {
    cls_jpeg_error_manager *manager = (cls_jpeg_error_manager *)cinfo->err;
    manager->status = status;
    cls_message_set(&manager->message, text);
    longjmp(manager->jump, 1);
}

static cls_status status_for_error_code(int code) {
    switch (code) {
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
        return CLS_TOO_LARGE;
    case JERR_INPUT_EOF:
    case JERR_INPUT_EMPTY:
        return CLS_TRUNCATED;
    case JERR_OUT_OF_MEMORY:
        return CLS_OUT_OF_MEMORY;
    case JERR_ARITH_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_NOTIMPL:
    case JERR_NOT_COMPILED:
        return CLS_UNSUPPORTED;
    default:
        return CLS_CORRUPT;
    }
}

static void fail_with_library_message(j_common_ptr cinfo, cls_status status) {
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    cls_jpeg_fail(cinfo, status, text);
}

// libjpeg's default error_exit prints and calls exit(); we jump back to the entry point.
static void error_exit(j_common_ptr cinfo) {
    fail_with_library_message(cinfo, status_for_error_code(cinfo->err->msg_code));
}

// msg_level < 0 is a warning. Most warnings describe recoverable oddities that real-world
// files carry (extraneous bytes, odd markers), but running out of data or meeting an invalid
// Huffman code means the rest of the picture would be made up by the library (grey fill),
// which must not be classified as if it were the real image.
static void emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level >= 0) return;
    cinfo->err->num_warnings++;
    switch (cinfo->err->msg_code) {
    case JWRN_JPEG_EOF:
        fail_with_library_message(cinfo, CLS_TRUNCATED);
        break;
    case JWRN_HUFF_BAD_CODE:
        fail_with_library_message(cinfo, CLS_CORRUPT);
        break;
    default:
        break;
    }
}

// The default writes to stderr; a library must stay quiet.
static void output_message(j_common_ptr cinfo) { (void)cinfo; }

struct jpeg_error_mgr *cls_jpeg_error_manager_init(cls_jpeg_error_manager *manager) {
    struct jpeg_error_mgr *library = jpeg_std_error(&manager->library);
    library->error_exit = error_exit;
    library->emit_message = emit_message;
    library->output_message = output_message;
    manager->status = CLS_OK;
    manager->message.text[0] = '\0';
    return library;
}
