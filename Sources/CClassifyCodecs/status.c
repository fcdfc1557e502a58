#include "cls_status.h"

#include <string.h>

void cls_message_set(cls_message *message, const char *text) {
    if (message == NULL) return;
    if (text == NULL) text = "";
    // Bounded copy: messages come from libraries and must never overrun the buffer.
    size_t length = strlen(text);
    if (length >= CLS_MESSAGE_CAPACITY) length = CLS_MESSAGE_CAPACITY - 1;
    memcpy(message->text, text, length);
    message->text[length] = '\0';
}
