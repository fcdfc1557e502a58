#include "CClassifyCodecs.h"
#include <stdio.h>
#include <jpeglib.h>
#include <png.h>
int cls_codecs_version(void) { return JPEG_LIB_VERSION * 100000 + (int)png_access_version_number(); }
