#ifndef CCLASSIFY_DIRECT_H
#define CCLASSIFY_DIRECT_H
// Internal: one call of cls_direct_conv2d, shared by its AVX2/portable body (direct.c) and its
// AVX-512 body (direct_avx512.c).

typedef struct {
    const float *input, *weights, *bias;
    /// PReLU slopes (out_padded floats) applied before the clamp, or NULL.
    const float *slopes;
    float *output;
    int in_h, in_w, in_channels, kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left;
    int out_h, out_w, out_channels, out_padded;
    float lower, upper;
    int tasks;
} direct_job;

/// The first and one-past-last output columns whose windows lie inside the input horizontally.
static inline __attribute__((always_inline)) void direct_interior_columns(const direct_job *j, int *x_lo, int *x_hi) {
    const int S = j->stride_w;
    int lo = (j->pad_left + S - 1) / S;
    int hi = j->in_w - j->kernel_w + j->pad_left >= 0 ? (j->in_w - j->kernel_w + j->pad_left) / S + 1 : 0;
    if (hi > j->out_w) hi = j->out_w;
    if (lo > hi) lo = hi;
    *x_lo = lo;
    *x_hi = hi;
}

/// Interior tiles of P pixels over output columns [x_lo, x_hi) of row oy, channels from o: TILE(j,
/// KW, CIN, P, V, oy, ox, o) with the stem's shape (3x3 on RGB) as constants; the last tile moves
/// left to end at x_hi (recomputing a few pixels); a span shorter than one tile goes pixel by pixel
/// with PIXEL(j, V, oy, ox, o). Shared by both bodies.
#define DIRECT_INTERIOR_SPAN(TILE, PIXEL, P, V)                                                                        \
    do {                                                                                                               \
        if (x_hi - x_lo >= (P)) {                                                                                      \
            for (int start = x_lo; start < x_hi; start += (P)) {                                                       \
                const int ox = start + (P) <= x_hi ? start : x_hi - (P);                                               \
                if (j->kernel_w == 3 && j->in_channels == 3) TILE(j, 3, 3, P, V, oy, ox, o);                           \
                else TILE(j, j->kernel_w, j->in_channels, P, V, oy, ox, o);                                            \
            }                                                                                                          \
        } else {                                                                                                       \
            for (int ox = x_lo; ox < x_hi; ox++) PIXEL(j, V, oy, ox, o);                                               \
        }                                                                                                              \
    } while (0)

/// Output rows [out_h * task / tasks, out_h * (task + 1) / tasks).
void cls_direct_task_avx512(void *context, int task);

#endif
