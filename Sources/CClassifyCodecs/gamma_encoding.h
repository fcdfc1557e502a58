// Re-encoding of linear 16-bit samples to 8 bits, for the 16-bit PNG path. Private.
#ifndef CLS_GAMMA_ENCODING_H
#define CLS_GAMMA_ENCODING_H

#include <stdint.h>

/// 65536 entries: a linear-light 16-bit sample to an 8-bit value encoded with the 1/2.2 power.
/// libpng linearises 16-bit files with that power law when asked for linear output (for sRGB
/// files too, despite the exact curve its documentation mentions), so this table undoes its
/// conversion exactly, except that the darkest few 8-bit levels, which 16-bit linear cannot
/// resolve, come back as 0. Built once, thread-safely, on first use.
const uint8_t *cls_linear_to_gamma22_table(void);

#endif
