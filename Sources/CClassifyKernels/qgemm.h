#ifndef CCLASSIFY_QGEMM_H
#define CCLASSIFY_QGEMM_H
// Internal: one call of cls_qgemm, shared by its portable body (qgemm.c) and the bodies for
// AVX2 (qgemm_avx2.c), AVX-VNNI (qgemm_avx_vnni.c) and AVX-512 VNNI (qgemm_avx512_vnni.c).
// All read the same packed weights: panels of 16 output channels, [k/4][16][4] int8 each (64
// bytes per group of four inputs), so a panel's group is one zmm, or two ymm of 8 channels.
#include <stddef.h>
#include <stdint.h>

enum { QGEMM_PANEL = 16, QGEMM_QUAD = 4 };

typedef struct {
    size_t m, n, k, quads, ldq, ldc;
    const uint8_t *q;
    const int8_t *packed;
    const int32_t *offset;
    const float *scale, *bias, *residual;
    float *c;
    float lower, upper, residual_lower, residual_upper;
    // Work split: rows are cut into row_blocks of about tile_m rows, the panels into groups of
    // panel_step; a task runs a rectangle of both.
    size_t tile_m, row_blocks, panels, panel_step;
    int m_tasks, n_tasks;
} qgemm_job;

/// One register tile of the 256-bit variants: `mr` rows from `a` against the panel at `b` (16
/// channels from `column`, `nr` of them valid), written to `c` (residual rows at `residual`).
typedef void (*qgemm_panel_tile_fn)(int mr, const qgemm_job *g, const uint8_t *a, const int8_t *b, size_t column,
                                    int nr, float *c, const float *residual);
/// The loop of the 256-bit variants over row blocks [b0, b1) x panels [p0, p1), one panel at a
/// time, rows in chunks that fit in L2.
void cls_qgemm_rect_panels(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1, qgemm_panel_tile_fn tile);
/// The 256-bit store: 8 channels of one row from their int32 sums `acc` (nr of them valid, 1...8).
void cls_qgemm_store8_avx2(const qgemm_job *g, const int32_t *acc, size_t column, int nr, float *out, const float *res);
/// The 256-bit variants' tile store: `mr` rows of one 16-channel panel from their accumulators,
/// `accumulators` pointing at mr x 2 `__m256i` (channels 0-7, 8-15 of each row), nr of the 16 valid.
void cls_qgemm_store_tile16_avx2(const qgemm_job *g, const void *accumulators, int mr, size_t column, int nr, float *c,
                                 const float *residual);

/// The rectangle of row blocks [b0, b1) x panels [p0, p1) on each variant.
void cls_qgemm_rect_avx2(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1);
void cls_qgemm_rect_avx_vnni(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1);
void cls_qgemm_rect_avx512_vnni(const qgemm_job *g, size_t b0, size_t b1, size_t p0, size_t p1);
void cls_quantize_u8_avx2(const float *x, size_t k, const float *multipliers, int zero_point, uint8_t *q);
void cls_quantize_u8_avx512(const float *x, size_t k, const float *multipliers, int zero_point, uint8_t *q);

/// Rows of a register tile per variant.
enum { QGEMM_TILE_M_AVX512 = 6, QGEMM_GROUP_AVX512 = 4, QGEMM_TILE_M_AVX_VNNI = 6, QGEMM_TILE_M_AVX2 = 4 };

/// The quantization of one value, shared by every variant so they agree to the bit: the float
/// clamp first (so huge values and NaN never reach the integer conversion), then round half to
/// even (the default rounding mode, as vcvtps2dq), then the zero point and the byte range.
static inline uint8_t cls_quantize_one(float x, float multiplier, int zero_point) {
    float f = x * multiplier;
    f = f > -512.0f ? f : -512.0f;  // NaN goes to the low end
    f = f < 512.0f ? f : 512.0f;
    int v = (int)__builtin_nearbyintf(f) + zero_point;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/// One output value from its integer accumulator (the scalar store every variant's tail uses);
/// `res` points at the residual value to add, or is NULL.
static inline float cls_qgemm_store_one(const qgemm_job *g, int32_t acc, size_t column, const float *res) {
    float v = __builtin_fmaf((float)(acc - g->offset[column]), g->scale[column], g->bias ? g->bias[column] : 0.0f);
    v = v < g->lower ? g->lower : v;
    v = v > g->upper ? g->upper : v;
    if (res) {
        v += *res;
        v = v < g->residual_lower ? g->residual_lower : v;
        v = v > g->residual_upper ? g->residual_upper : v;
    }
    return v;
}
#endif
