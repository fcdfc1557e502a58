#include "alpha_compositing.h"

#include <math.h>
#include <pthread.h>

#include "gamma_encoding.h"

static uint16_t decode_table[256];
static pthread_once_t decode_table_once = PTHREAD_ONCE_INIT;

// The inverse of cls_linear_to_gamma22_table: 8-bit gamma-2.2 values to 16-bit linear light.
static void build_decode_table(void) {
    for (int i = 0; i < 256; i++) decode_table[i] = (uint16_t)lround(pow(i / 255.0, 2.2) * 65535.0);
}

void cls_composite_rgba_onto_white(const uint8_t *rgba, uint8_t *rgb, size_t pixel_count) {
    pthread_once(&decode_table_once, build_decode_table);
    const uint8_t *encode = cls_linear_to_gamma22_table();
    for (size_t i = 0; i < pixel_count; i++) {
        const uint8_t *pixel = rgba + 4 * i;
        uint8_t r = pixel[0], g = pixel[1], b = pixel[2], alpha = pixel[3];
        uint8_t *out = rgb + 3 * i;
        if (alpha == 255) {
            out[0] = r;
            out[1] = g;
            out[2] = b;
            continue;
        }
        // linear = colour * a + white * (1 - a), with a in 1/255 steps.
        uint32_t uncovered = (uint32_t)(255 - alpha) * 65535u;
        const uint8_t channels[3] = {r, g, b};
        for (int c = 0; c < 3; c++) {
            uint32_t linear = ((uint32_t)decode_table[channels[c]] * alpha + uncovered + 127) / 255;
            out[c] = encode[linear > 65535u ? 65535u : linear];
        }
    }
}

void cls_composite_premultiplied_rgba_onto_white(const uint8_t *rgba, uint8_t *rgb, size_t pixel_count) {
    for (size_t i = 0; i < pixel_count; i++) {
        const uint8_t *pixel = rgba + 4 * i;
        const unsigned uncovered = 255u - pixel[3];
        uint8_t r = pixel[0], g = pixel[1], b = pixel[2];
        uint8_t *out = rgb + 3 * i;
        out[0] = (uint8_t)(r + uncovered > 255u ? 255u : r + uncovered);
        out[1] = (uint8_t)(g + uncovered > 255u ? 255u : g + uncovered);
        out[2] = (uint8_t)(b + uncovered > 255u ? 255u : b + uncovered);
    }
}
