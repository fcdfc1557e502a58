#include "cls_output_crop.h"

cls_status cls_output_crop_set(cls_output_crop crop, cls_output_crop *kept, uint32_t *output_width,
                               uint32_t *output_height, cls_message *message) {
    if (crop.width == 0 || crop.height == 0 || crop.x >= *output_width || crop.y >= *output_height ||
        crop.width > *output_width - crop.x || crop.height > *output_height - crop.y) {
        cls_message_set(message, "crop rectangle outside the image");
        return CLS_INVALID_ARGUMENT;
    }
    *kept = crop;
    *output_width = crop.width;
    *output_height = crop.height;
    return CLS_OK;
}
