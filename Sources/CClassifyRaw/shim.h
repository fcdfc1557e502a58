// LibRaw is C++; its C API (libraw_init, libraw_open_buffer, ...) catches every exception.
// The thread-safe build (libraw_r) because several images decode at once.
#include <libraw/libraw.h>
