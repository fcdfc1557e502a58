// A libjpeg error manager that turns every fatal error into a longjmp back to the C entry
// point that installed it, together with a cls_status and a message. Private to this target.
#ifndef CLS_JPEG_ERROR_MANAGER_H
#define CLS_JPEG_ERROR_MANAGER_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

#include "cls_status.h"

typedef struct cls_jpeg_error_manager {
    /// Must stay the first member: libjpeg hands us back a pointer to it.
    struct jpeg_error_mgr library;
    /// Set with setjmp by each entry point before it calls into libjpeg.
    jmp_buf jump;
    cls_status status;
    cls_message message;
} cls_jpeg_error_manager;

/// Prepares `manager` and returns the pointer to store in `cinfo->err`.
/// Warnings are silent except the two that mean the image cannot be trusted:
/// premature end of data (CLS_TRUNCATED) and a bad Huffman code (CLS_CORRUPT).
struct jpeg_error_mgr *cls_jpeg_error_manager_init(cls_jpeg_error_manager *manager);

/// Records `status` and `text`, then longjmps to the manager's jump point. Never returns.
void cls_jpeg_fail(j_common_ptr cinfo, cls_status status, const char *text);

#endif
