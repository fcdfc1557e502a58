// Camera raw files (CR2, CR3, NEF, ARW, DNG, ORF, RW2, RAF, PEF, ...) through LibRaw: not the
// sensor data, which would need demosaicing, but the preview the camera embedded (usually a
// JPEG), which is what a photo browser shows and is enough to classify.
//
//   cls_raw_file *raw; cls_raw_preview preview; cls_message message;
//   if (cls_raw_open(data, size, &raw, &preview, &message) == CLS_OK && preview.kind == CLS_RAW_PREVIEW_JPEG) {
//       decode_jpeg(preview.bytes, preview.length);   // then apply preview.orientation
//   }
//   cls_raw_close(raw);
//
// LibRaw is C++; its C API catches every exception, so nothing unwinds through this file.
#ifndef CLS_RAW_PREVIEW_H
#define CLS_RAW_PREVIEW_H

#include "cls_status.h"

typedef struct cls_raw_file cls_raw_file;

typedef enum cls_raw_preview_kind {
    /// No preview that can be shown: `message` says why (none embedded, or a kind LibRaw cannot extract).
    CLS_RAW_PREVIEW_NONE = 0,
    /// A JPEG stream.
    CLS_RAW_PREVIEW_JPEG = 1,
    /// Interleaved 8-bit RGB, width * height * 3 bytes.
    CLS_RAW_PREVIEW_BITMAP = 2,
} cls_raw_preview_kind;

typedef struct cls_raw_preview {
    cls_raw_preview_kind kind;
    /// The preview's size as the raw file's metadata states it (may be 0 for JPEG previews).
    uint32_t width;
    uint32_t height;
    /// EXIF-style orientation 1...8 of the raw file, to apply to the preview.
    uint32_t orientation;
    /// The preview's bytes, owned by the raw file until close.
    const uint8_t *bytes;
    size_t length;
    /// "Make Model" of the camera, for messages.
    char camera[128];
} cls_raw_preview;

/// Identifies the raw file in `data` (which must stay valid until close) and extracts its
/// embedded preview. A file LibRaw does not take for a camera raw file fails with
/// CLS_UNSUPPORTED (a plain TIFF, for example: the caller then tries libtiff); a raw file
/// without a usable preview succeeds with kind CLS_RAW_PREVIEW_NONE and the reason in `message`.
/// On success `*raw` must be closed.
cls_status cls_raw_open(const uint8_t *data, size_t size, cls_raw_file **raw, cls_raw_preview *preview,
                        cls_message *message);

/// Releases the file and its preview; NULL is allowed.
void cls_raw_close(cls_raw_file *raw);

#endif
