// A Huffman decoder for the baseline scan of a JPEG, installed in place of libjpeg's own for
// that scan. Private to this target.
//
// libjpeg decodes every coefficient of every block, one symbol at a time, even where nothing
// reads it: at 1/8 scale the inverse DCT of a full-resolution component reads each block's DC
// coefficient alone, a cropped decode transforms only the columns of its rectangle, and the rows
// jpeg_skip_scanlines passes are not transformed at all. This decoder skips the AC coefficients
// of such blocks several symbols per table lookup and decodes the others fully, a symbol and its
// magnitude bits per lookup. It hands libjpeg exactly the coefficients its own decoder would for
// every block libjpeg transforms, so the pixels are libjpeg's to the byte; everything else (IDCT,
// upsampling, colour conversion, markers after the scan) stays libjpeg's.
//
// It checks more than libjpeg does and never guesses: an invalid code, a coefficient past the
// block, entropy data that runs out or into a marker early, a wrong restart marker or stray bytes
// at the end of a segment make it *decline*: it sets `*declined` and fails through
// cls_jpeg_fail, and the caller decodes the file again with libjpeg alone, whose verdict (error,
// warning or picture) then stands.
//
//   jpeg_start_decompress(cinfo);
//   cls_jpeg_huffman_install(cinfo, data, size, resume_source_at, 0, 0, &declined);
#ifndef CLS_JPEG_HUFFMAN_DECODER_H
#define CLS_JPEG_HUFFMAN_DECODER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

/// Called once the scan is decoded: libjpeg's source must continue at byte `offset` of the data
/// (the marker after the scan), with nothing of what it had buffered before.
typedef void (*cls_jpeg_resume_source)(j_decompress_ptr cinfo, size_t offset);

/// Installs the decoder for the scan that jpeg_start_decompress has just begun (and, for a
/// cropped decode, after jpeg_crop_scanline: the crop's columns are read from cinfo->master),
/// when that scan is one it handles: sequential Huffman-coded 8-bit data holding every
/// component, with its tables present. `skips_rows`: jpeg_skip_scanlines will be called. `data`/
/// `size` is the whole file, and libjpeg's source must be reading it from memory: the scan starts
/// at cinfo->src->next_input_byte. Returns 1 when installed, 0 when libjpeg keeps decoding.
/// Its memory lives in libjpeg's image pool. The MCU loop uses BMI2 where the CPU has it, unless
/// `baseline_only` (for the tests, which compare both).
int cls_jpeg_huffman_install(j_decompress_ptr cinfo, const uint8_t *data, size_t size,
                             cls_jpeg_resume_source resume, int skips_rows, int baseline_only, int *declined);

/// Decodes the scan's next `count` MCUs into `mcus[0]` ..< `mcus[count]` (each an MCU's block
/// pointers, as libjpeg's decode_mcu takes them) when this decoder is the one installed, keeping
/// its bit reader in registers across them; returns 0, decoding nothing, when libjpeg's own is.
int cls_jpeg_huffman_decode_mcus(j_decompress_ptr cinfo, JBLOCKROW *const *mcus, int count);

#endif
