#include "jpeg_coefficient_output.h"

#include <string.h>

#include "cls_jpeg_idct_2x2.h"
#include "jpeg_huffman_decoder.h"

// libjpeg's module interfaces (struct jpeg_d_coef_controller); installed with its -dev package.
#include <jpegint.h>

/// MCUs decoded before their blocks are transformed: a component with one block per MCU (a
/// 4:2:0 photo's chroma) then has this many blocks side by side for the batched 2x2 transform.
/// Measured on the 190 12-MP JPEGs of the bench corpus at 1/8 (`classify-bench stages`, median
/// decode, AVX-512, Xeon family 6 model 207): 1 MCU 10.5 ms (the SSE2 steps inline, per block),
/// 4 10.0 ms, 8 9.8-9.9 ms, 16 9.9-10.1 ms, against 10.0-10.1 ms with libjpeg's transform per
/// block. Less than the 2x2 transforms' share suggests: the Huffman decoder, bound by its
/// dependency chains, had overlapped part of libjpeg's per-block transforms.
enum { MCUS_PER_GROUP = 8 };

typedef struct coefficient_output {
    /// Must stay the first member: libjpeg calls through cinfo->coef.
    struct jpeg_d_coef_controller library;
    /// The group's MCUs' blocks, each MCU's handed to the entropy decoder in turn.
    JBLOCKROW mcu[MCUS_PER_GROUP][D_MAX_BLOCKS_IN_MCU];
    /// `mcu[m]` for each m, as our Huffman decoder takes a group of MCUs.
    JBLOCKROW *mcus[MCUS_PER_GROUP];
    /// Each component's quantization steps in natural order as 16-bit values (libjpeg's islow
    /// multipliers), for the 2x2 transform.
    int16_t quant[MAX_COMPONENTS][DCTSIZE2];
    cls_jpeg_idct_2x2_path idct_2x2_path;
} coefficient_output;

/// jidctred.c's jpeg_idct_1x1 for one block: the DC coefficient times its quantization step,
/// descaled by 3 bits with rounding, through libjpeg's range limit.
static inline JSAMPLE one_sample(const JSAMPLE *range_limit, int step, JCOEF dc) {
    int value = ((int)dc * step + 4) >> 3;
    return range_limit[value & (MAXJSAMPLE * 4 + 3)];
}

/// decompress_onepass's loop for one iMCU row (one MCU row: the scan interleaves its
/// components), without its zeroing, with the 1x1 transforms inline and the 2x2 ones batched:
/// MCUS_PER_GROUP MCUs are decoded, then each component's blocks of the group are transformed.
static int decompress_row(j_decompress_ptr cinfo, JSAMPIMAGE output_buf) {
    coefficient_output *output = (coefficient_output *)cinfo->coef;
    const JDIMENSION last_column = cinfo->MCUs_per_row - 1;
    const JDIMENSION last_row = cinfo->total_iMCU_rows - 1;
    const JSAMPLE *range_limit = cinfo->sample_range_limit + CENTERJSAMPLE;
    for (JDIMENSION group = 0; group <= last_column; group += MCUS_PER_GROUP) {
        const int mcus = (int)(last_column - group + 1 < MCUS_PER_GROUP ? last_column - group + 1 : MCUS_PER_GROUP);
        // Our decoder takes the group in one call, never suspends (the data is in memory) and
        // either decodes the MCUs or fails (longjmp), declining when libjpeg should decode the
        // file alone; libjpeg's, for files ours does not take, one MCU at a time.
        if (!cinfo->entropy->insufficient_data) cinfo->master->last_good_iMCU_row = cinfo->input_iMCU_row;
        if (!cls_jpeg_huffman_decode_mcus(cinfo, output->mcus, mcus)) {
            for (int m = 0; m < mcus; m++) (void)(*cinfo->entropy->decode_mcu)(cinfo, output->mcu[m]);
        }
        int first_block = 0;
        for (int c = 0; c < cinfo->comps_in_scan; c++) {
            jpeg_component_info *component = cinfo->cur_comp_info[c];
            const int block = first_block;
            first_block += component->MCU_blocks;
            if (!component->component_needed) continue;
            const int size = component->DCT_scaled_size;
            JSAMPARRAY rows = output_buf[component->component_index];
            inverse_DCT_method_ptr transform = cinfo->idct->inverse_DCT[component->component_index];
            // What jddctmgr.c puts in dct_table[0] for a 1x1 transform (islow multipliers).
            const int step = component->quant_table->quantval[0];
            for (int y = 0; y < component->MCU_height; y++, rows += size) {
                if (cinfo->input_iMCU_row == last_row && y >= component->last_row_height) continue;
                const JDIMENSION start = group * (JDIMENSION)component->MCU_sample_width;
                if (size == 1) {
                    // An MCU's blocks of one component and row lie side by side in memory.
                    JSAMPROW row = rows[0] + start;
                    for (int m = 0; m < mcus; m++) {
                        const int width = group + (JDIMENSION)m < last_column ? component->MCU_width : component->last_col_width;
                        const JCOEF *dc = output->mcu[m][block + y * component->MCU_width][0];
                        for (int x = 0; x < width; x++) *row++ = one_sample(range_limit, step, dc[x * DCTSIZE2]);
                    }
                    continue;
                }
                // The row's blocks across the group, left to right.
                const int16_t *blocks[MCUS_PER_GROUP * MAX_SAMP_FACTOR];
                int count = 0;
                for (int m = 0; m < mcus; m++) {
                    const int width = group + (JDIMENSION)m < last_column ? component->MCU_width : component->last_col_width;
                    for (int x = 0; x < width; x++) blocks[count++] = output->mcu[m][block + y * component->MCU_width + x][0];
                }
                if (size == 2) {
                    cls_jpeg_idct_2x2(output->idct_2x2_path, blocks, (size_t)count, output->quant[component->component_index],
                                      rows[0] + start, rows[1] + start);
                } else {
                    JDIMENSION at = start;
                    for (int i = 0; i < count; i++, at += (JDIMENSION)size)
                        (*transform)(cinfo, component, (JCOEFPTR)blocks[i], rows, at);
                }
            }
        }
    }
    cinfo->output_iMCU_row++;
    if (++cinfo->input_iMCU_row < cinfo->total_iMCU_rows) return JPEG_ROW_COMPLETED;
    (*cinfo->inputctl->finish_input_pass)(cinfo);
    return JPEG_SCAN_COMPLETED;
}

static void start_pass(j_decompress_ptr cinfo) { (void)cinfo; }

static int consume_nothing(j_decompress_ptr cinfo) {
    (void)cinfo;
    return JPEG_SUSPENDED;
}

int cls_jpeg_coefficient_output_install(j_decompress_ptr cinfo) {
    if (cinfo->buffered_image || cinfo->inputctl->has_multiple_scans || cinfo->comps_in_scan < 2) return 0;
    if (cinfo->blocks_in_MCU > D_MAX_BLOCKS_IN_MCU || cinfo->master == NULL) return 0;
    if (cinfo->master->first_iMCU_col != 0 || cinfo->master->last_iMCU_col != cinfo->MCUs_per_row - 1) return 0;
    // Right after jpeg_start_decompress: nothing of the scan read or output yet.
    if (cinfo->input_iMCU_row != 0 || cinfo->output_iMCU_row != 0 || cinfo->output_scanline != 0) return 0;
    for (int c = 0; c < cinfo->comps_in_scan; c++) {
        const jpeg_component_info *component = cinfo->cur_comp_info[c];
        if (component->DCT_scaled_size < 1 || component->quant_table == NULL) return 0;
    }
    coefficient_output *output = (*cinfo->mem->alloc_small)((j_common_ptr)cinfo, JPOOL_IMAGE, sizeof *output);
    memset(output, 0, sizeof *output);
    const size_t bytes = MCUS_PER_GROUP * D_MAX_BLOCKS_IN_MCU * sizeof(JBLOCK);
    JBLOCKROW blocks = (*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_IMAGE, bytes);
    // Our Huffman decoder clears each block it decodes fully and sets the DC coefficient of the
    // others, which their 1x1 transform reads alone: zeroed once here, never again.
    memset(blocks, 0, bytes);
    for (int m = 0; m < MCUS_PER_GROUP; m++) {
        for (int b = 0; b < D_MAX_BLOCKS_IN_MCU; b++) output->mcu[m][b] = blocks + m * D_MAX_BLOCKS_IN_MCU + b;
        output->mcus[m] = output->mcu[m];
    }
    for (int c = 0; c < cinfo->comps_in_scan; c++) {
        const jpeg_component_info *component = cinfo->cur_comp_info[c];
        // jddctmgr.c's islow table: each step as the 16-bit multiplier libjpeg-turbo's SIMD uses.
        for (int i = 0; i < DCTSIZE2; i++) output->quant[component->component_index][i] = (int16_t)component->quant_table->quantval[i];
    }
    output->idct_2x2_path = cls_jpeg_idct_2x2_best_path();
    output->library.start_input_pass = start_pass;
    output->library.consume_data = consume_nothing;
    output->library.start_output_pass = start_pass;
    output->library.decompress_data = decompress_row;
    output->library.coef_arrays = NULL;
    cinfo->coef = &output->library;
    return 1;
}
