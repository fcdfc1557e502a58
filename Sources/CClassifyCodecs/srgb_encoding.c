#include "srgb_encoding.h"

#include <math.h>
#include <pthread.h>

double cls_srgb_to_linear(double encoded) {
    return encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4);
}

double cls_linear_to_srgb(double linear) {
    return linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1.0 / 2.4) - 0.055;
}

static uint8_t table[65536];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void) {
    for (int i = 0; i < 65536; i++) table[i] = (uint8_t)lround(pow(i / 65535.0, 1.0 / 2.2) * 255.0);
}

// A table because per-pixel pow() would dominate decoding time for large images.
const uint8_t *cls_linear_to_gamma22_table(void) {
    pthread_once(&table_once, build_table);
    return table;
}
