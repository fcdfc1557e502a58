// OpenBLAS's CBLAS interface plus its thread-count control (openblas_set_num_threads),
// which is declared in the same header on Debian/Ubuntu.
#include <cblas.h>
