#include "jpeg_coefficient_output.h"

#include <string.h>

// libjpeg's module interfaces (struct jpeg_d_coef_controller); installed with its -dev package.
#include <jpegint.h>

typedef struct coefficient_output {
    /// Must stay the first member: libjpeg calls through cinfo->coef.
    struct jpeg_d_coef_controller library;
    /// One MCU's blocks, handed to the entropy decoder.
    JBLOCKROW mcu[D_MAX_BLOCKS_IN_MCU];
} coefficient_output;

/// jidctred.c's jpeg_idct_1x1 for one block: the DC coefficient times its quantization step,
/// descaled by 3 bits with rounding, through libjpeg's range limit.
static inline JSAMPLE one_sample(const JSAMPLE *range_limit, int step, JCOEF dc) {
    int value = ((int)dc * step + 4) >> 3;
    return range_limit[value & (MAXJSAMPLE * 4 + 3)];
}

/// decompress_onepass's loop for one iMCU row (one MCU row: the scan interleaves its
/// components), without its zeroing and with the 1x1 transforms inline.
static int decompress_row(j_decompress_ptr cinfo, JSAMPIMAGE output_buf) {
    coefficient_output *output = (coefficient_output *)cinfo->coef;
    const JDIMENSION last_column = cinfo->MCUs_per_row - 1;
    const JDIMENSION last_row = cinfo->total_iMCU_rows - 1;
    const JSAMPLE *range_limit = cinfo->sample_range_limit + CENTERJSAMPLE;
    for (JDIMENSION column = 0; column <= last_column; column++) {
        if (!cinfo->entropy->insufficient_data) cinfo->master->last_good_iMCU_row = cinfo->input_iMCU_row;
        // Our decoder never suspends: the data is in memory, and it either decodes the MCU or
        // fails (longjmp), declining when libjpeg should decode the file alone.
        (void)(*cinfo->entropy->decode_mcu)(cinfo, output->mcu);
        int block = 0;
        for (int c = 0; c < cinfo->comps_in_scan; c++) {
            jpeg_component_info *component = cinfo->cur_comp_info[c];
            if (!component->component_needed) {
                block += component->MCU_blocks;
                continue;
            }
            const int size = component->DCT_scaled_size;
            const int useful_width = column < last_column ? component->MCU_width : component->last_col_width;
            JSAMPARRAY rows = output_buf[component->component_index];
            const JDIMENSION start = column * (JDIMENSION)component->MCU_sample_width;
            inverse_DCT_method_ptr transform = cinfo->idct->inverse_DCT[component->component_index];
            // What jddctmgr.c puts in dct_table[0] for a 1x1 transform (islow multipliers).
            const int step = component->quant_table->quantval[0];
            for (int y = 0; y < component->MCU_height; y++, block += component->MCU_width, rows += size) {
                if (cinfo->input_iMCU_row == last_row && y >= component->last_row_height) continue;
                if (size == 1) {
                    JSAMPROW row = rows[0] + start;
                    for (int x = 0; x < useful_width; x++) row[x] = one_sample(range_limit, step, output->mcu[block + x][0][0]);
                } else {
                    JDIMENSION at = start;
                    for (int x = 0; x < useful_width; x++, at += (JDIMENSION)size)
                        (*transform)(cinfo, component, (JCOEFPTR)output->mcu[block + x], rows, at);
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
    JBLOCKROW blocks = (*cinfo->mem->alloc_large)((j_common_ptr)cinfo, JPOOL_IMAGE, D_MAX_BLOCKS_IN_MCU * sizeof(JBLOCK));
    // Our Huffman decoder clears each block it decodes fully and sets the DC coefficient of the
    // others, which their 1x1 transform reads alone: zeroed once here, never again.
    memset(blocks, 0, D_MAX_BLOCKS_IN_MCU * sizeof(JBLOCK));
    for (int b = 0; b < D_MAX_BLOCKS_IN_MCU; b++) output->mcu[b] = blocks + b;
    output->library.start_input_pass = start_pass;
    output->library.consume_data = consume_nothing;
    output->library.start_output_pass = start_pass;
    output->library.decompress_data = decompress_row;
    output->library.coef_arrays = NULL;
    cinfo->coef = &output->library;
    return 1;
}
