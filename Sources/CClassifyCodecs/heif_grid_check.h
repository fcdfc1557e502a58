// A check of HEIF grid images that libheif 1.15 does not make, shared by the HEIC/AVIF decoder.
#ifndef CLS_HEIF_GRID_CHECK_H
#define CLS_HEIF_GRID_CHECK_H

#include "heif_items.h"

/// 0 when the HEIF file whose `items` these are has a grid image ('grid' item) one of whose tiles ('dimg'
/// references) has no size ('ispe' property) or another size than the first tile; 1 otherwise,
/// also when the references or properties cannot be read (libheif then says what is wrong). libheif 1.15 places
/// such tiles by a size of 0 and leaves most of the picture unwritten: whatever its memory held.
int heif_grids_are_whole(const heif_items *items);

#endif
