#include "cls_row_reduction.h"

#include <stdlib.h>
#include <string.h>

uint32_t cls_reduced_length(uint32_t length, uint32_t factor) {
    return (uint32_t)(((uint64_t)length + factor - 1) / factor);
}

uint32_t cls_reduction_factor(uint32_t width, uint32_t height, uint32_t minimum_short_side) {
    if (minimum_short_side == 0) return 1;
    const uint32_t short_side = width < height ? width : height;
    static const uint32_t factors[] = {8, 4, 2};
    for (size_t i = 0; i < sizeof factors / sizeof factors[0]; i++) {
        if (cls_reduced_length(short_side, factors[i]) >= minimum_short_side) return factors[i];
    }
    return 1;
}

int cls_row_reducer_init(cls_row_reducer *reducer, uint32_t width, uint32_t height, uint32_t factor,
                         uint8_t *output) {
    memset(reducer, 0, sizeof *reducer);
    reducer->width = width;
    reducer->height = height;
    reducer->factor = factor == 2 || factor == 4 || factor == 8 ? factor : 1;
    reducer->output_width = cls_reduced_length(width, reducer->factor);
    reducer->output_height = cls_reduced_length(height, reducer->factor);
    reducer->output = output;
    if (reducer->factor > 1) {
        reducer->sums = calloc((size_t)reducer->output_width * 3, sizeof *reducer->sums);
        if (reducer->sums == NULL) return 0;
    }
    return 1;
}

void cls_row_reducer_crop(cls_row_reducer *reducer, cls_output_crop crop) { reducer->crop = crop; }

// The reduced columns written: the crop's, or all.
static void written_columns(const cls_row_reducer *reducer, uint32_t *first, uint32_t *end) {
    *first = reducer->crop.width ? reducer->crop.x : 0;
    *end = reducer->crop.width ? reducer->crop.x + reducer->crop.width : reducer->output_width;
}

// Whether reduced row `row` is written (inside the crop, or no crop).
static int writes_row(const cls_row_reducer *reducer, uint32_t row) {
    return reducer->crop.width == 0 || (row >= reducer->crop.y && row - reducer->crop.y < reducer->crop.height);
}

// Writes the finished block row: each sum divided by the pixels under it, rounded half up.
static void emit(cls_row_reducer *reducer, uint32_t block_rows) {
    const uint32_t factor = reducer->factor;
    uint32_t first, end;
    written_columns(reducer, &first, &end);
    const uint32_t row = (reducer->rows_added - 1) / factor - reducer->crop.y;
    uint8_t *out = reducer->output + (size_t)row * (end - first) * 3;
    for (uint32_t x = first; x < end; x++) {
        uint32_t columns = reducer->width - x * factor < factor ? reducer->width - x * factor : factor;
        uint32_t count = columns * block_rows;
        for (int c = 0; c < 3; c++) {
            uint32_t *sum = reducer->sums + 3 * x + c;
            out[3 * (x - first) + c] = (uint8_t)((*sum + count / 2) / count);
            *sum = 0;
        }
    }
}

void cls_row_reducer_add(cls_row_reducer *reducer, const uint8_t *rgb_row) {
    if (reducer->rows_added >= reducer->height) return;
    const uint32_t factor = reducer->factor, width = reducer->width;
    if (!writes_row(reducer, reducer->rows_added / factor)) {
        // A block outside the crop: nothing of it is summed, so nothing is left to clear.
        reducer->rows_added++;
        return;
    }
    uint32_t first, end;
    written_columns(reducer, &first, &end);
    if (factor == 1) {
        const size_t row = reducer->rows_added - reducer->crop.y;
        memcpy(reducer->output + row * (end - first) * 3, rgb_row + (size_t)first * 3, (size_t)(end - first) * 3);
        reducer->rows_added++;
        return;
    }
    uint32_t *sums = reducer->sums;
    for (uint32_t column = first, x = first * factor; column < end; column++) {
        uint32_t stop = x + factor < width ? x + factor : width;
        uint32_t r = 0, g = 0, b = 0;
        for (; x < stop; x++) {
            r += rgb_row[3 * x];
            g += rgb_row[3 * x + 1];
            b += rgb_row[3 * x + 2];
        }
        sums[3 * column] += r;
        sums[3 * column + 1] += g;
        sums[3 * column + 2] += b;
    }
    reducer->rows_added++;
    const uint32_t in_block = reducer->rows_added % factor;
    if (in_block == 0) {
        emit(reducer, factor);
    } else if (reducer->rows_added == reducer->height) {
        emit(reducer, in_block);
    }
}

size_t cls_row_reducer_scratch_bytes(const cls_row_reducer *reducer) {
    return reducer->sums == NULL ? 0 : (size_t)reducer->output_width * 3 * sizeof *reducer->sums;
}

void cls_row_reducer_free(cls_row_reducer *reducer) {
    free(reducer->sums);
    reducer->sums = NULL;
}
