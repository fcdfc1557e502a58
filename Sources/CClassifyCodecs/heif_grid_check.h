// A check of HEIF grid images that libheif 1.15 does not make, shared by the HEIC/AVIF decoder.
#ifndef CLS_HEIF_GRID_CHECK_H
#define CLS_HEIF_GRID_CHECK_H

#include <stddef.h>
#include <stdint.h>

/// 0 when the HEIF file `data` has a grid image ('grid' item) one of whose tiles ('dimg'
/// references) has no size ('ispe' property) or another size than the first tile; 1 otherwise,
/// also when the boxes cannot be read (libheif then says what is wrong). libheif 1.15 places
/// such tiles by a size of 0 and leaves most of the picture unwritten: whatever its memory held.
int cls_heif_grids_are_whole(const uint8_t *data, size_t size);

#endif
