#ifndef CCLASSIFY_GEMM_H
#define CCLASSIFY_GEMM_H
// Internal: one call of cls_gemm_packed, shared by its AVX2/portable body (gemm.c) and its AVX-512
// body (gemm_avx512.c). Both read the same packed weights (panels of 16 output channels).
#include <stddef.h>

enum { GEMM_PANEL = 16 };

typedef struct {
    size_t m, n, k, lda, ldc;
    const float *a, *packed, *bias, *residual;
    float *c;
    float lower, upper, residual_lower, residual_upper;
    size_t row_blocks, panels;
    int m_tasks, n_tasks;
    // Row blocks and panels per task unit: tasks cut the panels on multiples of panel_step.
    size_t panel_step;
} gemm_job;

/// The AVX-512 task body: rows [row blocks of task], panels [of task], for a job planned with
/// cls_gemm_avx512_plan.
void cls_gemm_task_avx512(void *context, int task);
/// The AVX-512 task body for 17-24, 33-40 or 49-56 outputs: rows [row blocks of task], every column, the job
/// planned with cls_gemm_avx512_narrow_rows rows per block and one task per band of rows.
void cls_gemm_task_avx512_narrow(void *context, int task);
/// Rows per tile of cls_gemm_task_avx512_narrow for n outputs (24 accumulators: 12 rows of two
/// panels, 8 of three, 6 of four); 0 when n is not such a width. Defined in gemm.c, beside
/// cls_gemm_avx512_leaves_panel_empty, which asks the same question for the sparse kernel.
int cls_gemm_avx512_narrow_rows(size_t n);
/// Rows per register tile on the AVX-512 path (row_blocks = ceil(m / this)).
enum { GEMM_AVX512_TILE_M = 6, GEMM_AVX512_PANELS = 4 };

#endif
