#ifndef CCLASSIFY_CODECS_H
#define CCLASSIFY_CODECS_H
#include <stddef.h>
#include <stdint.h>
int cls_codecs_version(void);
#endif
