// Outcome codes and messages shared by every function of the codec layer.
#ifndef CLS_STATUS_H
#define CLS_STATUS_H

#include <stddef.h>
#include <stdint.h>

/// Outcome of a codec call. Anything other than CLS_OK comes with a message.
typedef enum cls_status {
    CLS_OK = 0,
    /// The data ends before the image does.
    CLS_TRUNCATED = 1,
    /// The data is damaged or violates the format.
    CLS_CORRUPT = 2,
    /// The header declares more pixels than the caller allows (or the library supports).
    CLS_TOO_LARGE = 3,
    /// A valid image that uses a feature or colour space this build cannot decode.
    CLS_UNSUPPORTED = 4,
    /// An allocation inside the codec failed.
    CLS_OUT_OF_MEMORY = 5,
    /// The caller broke the contract (e.g. an output buffer that is too small).
    CLS_INVALID_ARGUMENT = 6,
    /// The library this build links cannot decode this kind of image at all (e.g. a libheif
    /// without an HEVC decoder); the message names what is missing.
    CLS_DECODER_MISSING = 7,
} cls_status;

enum { CLS_MESSAGE_CAPACITY = 256 };

/// A NUL-terminated explanation filled in when a call fails.
typedef struct cls_message {
    char text[CLS_MESSAGE_CAPACITY];
} cls_message;

/// Copies `text` into `message` (truncating to fit); a NULL `message` is ignored.
void cls_message_set(cls_message *message, const char *text);

#endif
