#include "gamma_encoding.h"

#include <math.h>
#include <pthread.h>

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
