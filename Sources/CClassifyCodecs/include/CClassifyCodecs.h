// Umbrella header for the C codec layer.
//
// libjpeg and libpng report fatal errors with setjmp/longjmp. A longjmp must never unwind
// through a Swift frame, so every call into those libraries happens in this target: each
// function below sets its own jump point, and reports failure as a cls_status plus a
// human-readable message that Swift turns into a typed error. The other codecs (libheif,
// libwebp, libtiff, giflib, LibRaw) return errors, but live here too, behind the same
// convention, so each format is one C file and one Swift file.
#ifndef CCLASSIFY_CODECS_H
#define CCLASSIFY_CODECS_H

#include "cls_status.h"
#include "cls_image_info.h"
#include "cls_output_crop.h"
#include "cls_jpeg_decoder.h"
#include "cls_jpeg_encoder.h"
#include "cls_png_decoder.h"
#include "cls_heif_decoder.h"
#include "cls_webp_decoder.h"
#include "cls_tiff_decoder.h"
#include "cls_gif_decoder.h"
#include "cls_raw_preview.h"
#include "cls_row_reduction.h"
#include "cls_one_cpu.h"
#include "cls_jpeg_idct_2x2.h"

#endif
