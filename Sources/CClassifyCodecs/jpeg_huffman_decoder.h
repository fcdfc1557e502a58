// A Huffman decoder for the baseline scan of a JPEG decoded at 1/8 scale, installed in place of
// libjpeg's own for that scan. Private to this target.
//
// At 1/8 scale libjpeg's inverse DCT of a full-resolution component reads each block's DC
// coefficient alone, yet libjpeg still decodes every AC symbol of it, one at a time. This
// decoder skips the AC coefficients of such blocks several symbols per table lookup and decodes
// the others (chroma upsampled in the IDCT) fully. It hands libjpeg exactly the coefficients its
// own decoder would, so the pixels are libjpeg's to the byte; everything else (IDCT, upsampling,
// colour conversion, markers after the scan) stays libjpeg's.
//
// It checks more than libjpeg does and never guesses: an invalid code, a coefficient past the
// block, entropy data that runs out or into a marker early, a wrong restart marker or stray bytes
// at the end of a segment make it *decline*: it sets `*declined` and fails through
// cls_jpeg_fail, and the caller decodes the file again with libjpeg alone, whose verdict (error,
// warning or picture) then stands.
//
//   jpeg_start_decompress(cinfo);
//   cls_jpeg_huffman_install(cinfo, data, size, resume_source_at, 0, &declined);
#ifndef CLS_JPEG_HUFFMAN_DECODER_H
#define CLS_JPEG_HUFFMAN_DECODER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

/// Called once the scan is decoded: libjpeg's source must continue at byte `offset` of the data
/// (the marker after the scan), with nothing of what it had buffered before.
typedef void (*cls_jpeg_resume_source)(j_decompress_ptr cinfo, size_t offset);

/// Installs the decoder for the scan that jpeg_start_decompress has just begun, when that scan
/// is one it handles: sequential Huffman-coded 8-bit data holding every component, decoded at
/// 1/8 scale (some component's DCT_scaled_size is 1), with its tables present. `data`/`size`
/// is the whole file, and libjpeg's source must be reading it from memory: the scan starts at
/// cinfo->src->next_input_byte. Returns 1 when installed, 0 when libjpeg keeps decoding.
/// Its memory lives in libjpeg's image pool. The MCU loop uses BMI2 where the CPU has it, unless
/// `baseline_only` (for the tests, which compare both).
int cls_jpeg_huffman_install(j_decompress_ptr cinfo, const uint8_t *data, size_t size,
                             cls_jpeg_resume_source resume, int baseline_only, int *declined);

#endif
