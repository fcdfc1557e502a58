// A coefficient controller for whole, single-scan decodes read by our Huffman decoder, installed
// in place of libjpeg's one-pass controller (jdcoefct.c's decompress_onepass). Private to this
// target.
//
// At 1/8 scale libjpeg transforms each luma block with a 1x1 inverse DCT, one indirect call per
// block for one output sample, after zeroing the whole MCU buffer for the entropy decoder. Our
// Huffman decoder writes every coefficient a transform reads (it clears the blocks it decodes
// fully, and a 1x1 transform reads the DC coefficient alone), so this controller skips the
// zeroing and computes the 1x1 samples itself, with libjpeg's arithmetic (jidctred.c's
// jpeg_idct_1x1: dequantize, descale by 3 bits, range-limit). It decodes eight MCUs before
// transforming them, so the 2x2 transforms of a 4:2:0 photo's chroma run side by side
// (cls_jpeg_idct_2x2: libjpeg-turbo's SSE2 arithmetic, two or four blocks per instruction);
// blocks of other sizes go to libjpeg's transform as in decompress_onepass. The output is
// libjpeg's to the byte.
//
//   jpeg_start_decompress(cinfo);
//   if (cls_jpeg_huffman_install(...)) cls_jpeg_coefficient_output_install(cinfo);
#ifndef CLS_JPEG_COEFFICIENT_OUTPUT_H
#define CLS_JPEG_COEFFICIENT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

/// Installs the controller after jpeg_start_decompress and our Huffman decoder's install, for a
/// decode of every row and column (no jpeg_crop_scanline, no jpeg_skip_scanlines) of an
/// interleaved scan of two or more components. Returns 1 when installed, 0 when libjpeg's
/// controller stays. Its memory lives in libjpeg's image pool.
int cls_jpeg_coefficient_output_install(j_decompress_ptr cinfo);

#endif
