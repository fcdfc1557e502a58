// The sRGB transfer curve, used where we reduce 16-bit PNG samples ourselves. Private.
#ifndef CLS_SRGB_ENCODING_H
#define CLS_SRGB_ENCODING_H

#include <stdint.h>

/// sRGB-encoded value in [0, 1] to linear light in [0, 1] (exact sRGB curve).
double cls_srgb_to_linear(double encoded);

/// Linear light in [0, 1] to the sRGB-encoded value in [0, 1] (exact sRGB curve).
double cls_linear_to_srgb(double linear);

/// 65536 entries: a linear 16-bit sample to an 8-bit value encoded with the 1/2.2 power.
/// libpng linearises sRGB- and gAMA-tagged 16-bit files with that power law (not the exact
/// curve), so this table undoes its conversion; only the darkest few levels, which 16-bit
/// linear cannot resolve, come back as 0. Built once, thread-safely, on first use.
const uint8_t *cls_linear_to_gamma22_table(void);

#endif
