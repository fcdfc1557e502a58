// Compositing of transparent pixels onto white, shared by the decoders of formats with alpha.
#ifndef CLS_ALPHA_COMPOSITING_H
#define CLS_ALPHA_COMPOSITING_H

#include <stddef.h>
#include <stdint.h>

/// Writes `pixel_count` RGB pixels to `rgb` from straight (not premultiplied) 8-bit RGBA in
/// `rgba`, composited onto white in linear light (gamma 2.2), as the PNG decoder does (libpng
/// blends in linear light), so a transparent region looks the same whichever format held it.
/// Opaque pixels are copied unchanged. `rgb` may alias `rgba` (it is written front to back,
/// 3 bytes behind the 4 it reads).
void cls_composite_rgba_onto_white(const uint8_t *rgba, uint8_t *rgb, size_t pixel_count);

/// The same for premultiplied RGBA (colour already scaled by alpha, as libtiff's RGBA interface
/// and some HEIF files deliver it): c + (1 - a) * white in the stored encoding, which is what
/// the premultiplied values allow without amplifying the noise of faint pixels.
void cls_composite_premultiplied_rgba_onto_white(const uint8_t *rgba, uint8_t *rgb, size_t pixel_count);

#endif
