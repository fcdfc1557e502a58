#ifndef CCLASSIFY_KERNELS_H
#define CCLASSIFY_KERNELS_H
// Hot loops of the inference runtime. Each kernel is written once in portable C and compiled
// twice: a baseline build and an AVX2+FMA build (per-function target attributes, so the package
// needs no compiler flags); the hottest ones (GEMM, depthwise, stem) also have an AVX-512 variant
// written for 16-float vectors. The entry points below pick the variant from cls_kernels_level().
// Layout everywhere is NHWC, batch 1: element (y, x, c) of an HxWxC map is at (y*W + x)*C + c.
#include <stddef.h>
#include <stdint.h>

/// Kernel variant levels: portable C, AVX2+FMA (256-bit), AVX-512F/DQ/BW/VL (512-bit).
enum { CLS_LEVEL_PORTABLE = 0, CLS_LEVEL_AVX2 = 1, CLS_LEVEL_AVX512 = 2 };

/// The best level the CPU and OS support (cpuid leaves 1 and 7, and XGETBV: the OS must save the
/// YMM state, and for AVX-512 the opmask and ZMM state), checked once.
int cls_cpu_kernel_level(void);
/// 1 when the CPU and OS support AVX2 and FMA, else 0.
int cls_cpu_has_avx2_fma(void);
/// The level the kernels use now on this thread: the thread's own (cls_kernels_set_thread_level),
/// else the process-wide one. Unless set, that is the level named by the environment variable
/// CLASSIFY_KERNELS (avx512, avx2 or portable; capped at what the CPU has, with a line on stderr
/// when the name is unknown or the CPU lacks it), or else the best the CPU has.
int cls_kernels_level(void);
/// Makes the kernels use `level`, capped at cls_cpu_kernel_level(); returns the level in effect.
/// Process-wide; meant for tests and benchmarks, between inferences.
int cls_kernels_set_level(int level);
/// CLS_LEVEL_* for "avx512", "avx2" or "portable"; -1 for anything else.
int cls_kernel_level_named(const char *name);
/// "avx512", "avx2" or "portable".
const char *cls_kernel_level_name(int level);
/// Makes the kernels called on this thread, and the parallel tasks it starts, use `level`
/// (capped at cls_cpu_kernel_level()) whatever the process-wide level; -1 removes the thread's
/// own level. Returns the thread's previous level (-1: none), to restore it.
int cls_kernels_set_thread_level(int level);

/// Depthwise convolution: out(y,x,c) = clamp(bias[c] + sum_{ky,kx} in(y*sh+ky-pt, x*sw+kx-pl, c) * w[ky][kx][c]).
/// Weights are packed [kernel_h][kernel_w][channels]; taps outside the input read zero; bias is
/// required (channels floats). Uses the threads set with cls_threads_configure.
void cls_depthwise_conv2d(const float *input, int in_h, int in_w, int channels,
                          const float *weights, const float *bias, int kernel_h, int kernel_w,
                          int stride_h, int stride_w, int pad_top, int pad_left,
                          float *output, int out_h, int out_w, float lower, float upper);

/// cls_depthwise_conv2d with its output written as the uint8 input of an int8 1x1 convolution:
/// q[p * q_stride + c] = what cls_quantize_u8 (with `multipliers` and `zero_point`) gives for
/// output value (p, c), p = y * out_w + x; bytes past `channels` in each row are zero. The AVX-512
/// body quantizes in its store, so no floats are written; elsewhere they go to `scratch`
/// (out_h * out_w * channels floats) and are quantized from there. q_stride >= channels.
void cls_depthwise_conv2d_u8(const float *input, int in_h, int in_w, int channels,
                             const float *weights, const float *bias, int kernel_h, int kernel_w,
                             int stride_h, int stride_w, int pad_top, int pad_left, int out_h, int out_w,
                             float lower, float upper, const float *multipliers, int zero_point,
                             uint8_t *q, size_t q_stride, float *scratch);

/// In place over rows x channels: data[r][c] = clamp(data[r][c] + bias[c]) (bias may be NULL).
void cls_bias_activation(float *data, size_t rows, size_t channels, const float *bias, float lower, float upper);

/// out[i] = clamp(a[i] + b[i]); out may alias a or b.
void cls_add_activation(const float *a, const float *b, float *out, size_t count, float lower, float upper);

/// Floats of scratch one thread of cls_sparse_pointwise needs.
size_t cls_sparse_pointwise_scratch(int k, int n);
/// The offsets cls_sparse_pointwise reads for nonzeros at input channels index[0 ..< count].
void cls_sparse_pointwise_offsets(const int *index, size_t count, int *offset);
/// A pointwise convolution with sparse weights (m pixels, k -> n channels, NHWC, a's and c's rows
/// packed): c[i][o] = clamp(bias[o] + sum_q value[q] * a[i][index[q]], lower, upper) over q in
/// row_start[o] ..< row_start[o + 1] (offset from cls_sparse_pointwise_offsets), then, when
/// residual is not NULL, clamp(c[i][o] + residual[i][o], residual_lower, residual_upper);
/// residual may equal c. Runs as many threads as scratch_floats holds
/// cls_sparse_pointwise_scratch for (at least one).
void cls_sparse_pointwise(size_t m, int n, int k, const float *a, const int *row_start, const int *offset,
                          const float *value, const float *bias, float lower, float upper, const float *residual,
                          float residual_lower, float residual_upper, float *c, float *scratch, size_t scratch_floats);

/// Floats of scratch cls_resize_bilinear needs: two rows of the output.
size_t cls_resize_bilinear_scratch(int out_w, int channels);
/// Bilinear resizing of an NHWC map (in_w columns of `channels`) to out_h x out_w, by taps given
/// per output row and column: source indices lower and upper and the weight of upper. Output
/// (y, x, c) = h(lower_y) + (h(upper_y) - h(lower_y)) * row_fraction[y], where h(r) =
/// in(r, lower_x, c) + (in(r, upper_x, c) - in(r, lower_x, c)) * col_fraction[x]. When residual
/// (out_h x out_w x channels) is not NULL, it is added and the sum clamped to [lower, upper]
/// (a fused Add). Scratch: cls_resize_bilinear_scratch floats.
void cls_resize_bilinear(const float *input, int in_w, int channels, int out_h, int out_w, const int *row_lower,
                         const int *row_upper, const float *row_fraction, const int *col_lower, const int *col_upper,
                         const float *col_fraction, const float *residual, float lower, float upper, float *scratch,
                         float *output);

/// Area resampling (adaptive average pooling) of the region x0 ..< x0 + w, y0 ..< y0 + h of an
/// RGB image (`image_width` pixels of 3 bytes per row) to out_h x out_w x 3 floats, each
/// (mean of its window - mean[c]) * scale[c]; output rows start `row_stride` floats apart.
/// Output row i averages source rows floor(i * h / out_h) ..< ceil((i + 1) * h / out_h), columns
/// likewise. Scratch: cls_area_resample_scratch_bytes(w, out_w) bytes, 4-byte aligned. Exact
/// integer sums, no fused multiply-add.
void cls_area_resample_rgb8(const uint8_t *pixels, int image_width, int x0, int y0, int w, int h, int out_w, int out_h,
                            const float *mean, const float *scale, float *output, size_t row_stride, void *scratch);
/// Bytes of scratch cls_area_resample_rgb8 needs for a region w pixels wide resampled to out_w.
size_t cls_area_resample_scratch_bytes(int w, int out_w);

/// Threads the kernels may use for one call (at least 1). With 1, no worker thread exists; with
/// n > 1, n - 1 persistent workers spin briefly between kernels, then sleep.
void cls_threads_configure(int count);
/// The current setting.
int cls_threads_count(void);

/// Process-wide (glibc only; elsewhere returns 0 and does nothing): allocations up to
/// `mmap_threshold` bytes come from the heap instead of fresh mappings, and up to `trim_threshold`
/// bytes of freed memory stay mapped, so per-image buffers (file bytes, pixels) are reused instead
/// of being page-faulted in again for every image. Returns 1 when both were set.
int cls_allocator_keep_freed_memory(size_t mmap_threshold, size_t trim_threshold);

/// Process-wide (glibc only; elsewhere returns 0 and does nothing): at most `arenas` malloc arenas,
/// so the freed memory each arena keeps is not multiplied by the number of threads that ever
/// allocated at once. Call before starting threads. Returns 1 when set.
int cls_allocator_limit_arenas(int arenas);
/// Gives the memory free in every malloc arena back to the system (glibc's malloc_trim(0), which
/// also releases whole free pages inside the heap); 1 when some was released. 0 elsewhere.
int cls_allocator_release_freed_memory(void);

/// Sets flush-to-zero and denormals-are-zero for the calling thread (ReLU6 networks produce
/// denormals, which are very slow on x86); returns the previous state for cls_flush_denormals_end.
unsigned cls_flush_denormals_begin(void);
void cls_flush_denormals_end(unsigned saved);

/// Floats needed by cls_gemm_pack_weights: n rounded up to 16, times k.
size_t cls_gemm_packed_count(size_t k, size_t n);

/// Nonzero when the AVX-512 GEMM runs n outputs with a partly empty 16-channel panel and no
/// narrow tile of its own for that width (n of 1-16 not 16, or past 64 not a multiple of 16, or
/// a last panel of 9-15): the widths where the sparse 1x1 kernel can beat it.
int cls_gemm_avx512_leaves_panel_empty(size_t n);
/// Packs weights given as [n][k] (each output channel's k inputs contiguous, as PyTorch stores a
/// 1x1 convolution) into panels of 16 output channels, packed[n/16][k][16], zero past n.
void cls_gemm_pack_weights(const float *weights, size_t k, size_t n, float *packed);
/// c[i][j] = clamp(bias[j] + sum_p a[i][p] * w[j][p], lower, upper) for i < m, j < n, then, when
/// residual is not NULL, c[i][j] = clamp(c[i][j] + residual[i][j], residual_lower, residual_upper).
/// a has row stride lda, c and residual row stride ldc; bias may be NULL; residual may equal c.
/// Uses the threads set with cls_threads_configure.
void cls_gemm_packed(size_t m, size_t n, size_t k, const float *a, size_t lda, const float *packed,
                     const float *bias, float lower, float upper, const float *residual, float residual_lower,
                     float residual_upper, float *c, size_t ldc);

/// Floats needed by cls_direct_conv_pack_weights (out_channels rounded up to 8).
size_t cls_direct_conv_packed_count(int kernel_h, int kernel_w, int in_channels, int out_channels);
/// Packs PyTorch weights [out][in][kh][kw] as [kh][kw][in][out rounded up to 8], zero-filled.
void cls_direct_conv_pack_weights(const float *weights, int kernel_h, int kernel_w, int in_channels,
                                  int out_channels, float *packed);
/// Ungrouped convolution computed directly (no im2col), for few input or output channels (the
/// stem, the face detector's small convolutions):
/// s = bias[o] + sum_{ky,kx,i} in(y*sh+ky-pt, x*sw+kx-pl, i) * w[o][i][ky][kx];
/// out(y,x,o) = clamp(s < 0 && slopes ? s * slopes[o] : s, lower, upper).
/// bias is required and slopes optional (out_channels floats each; slopes NULL = no PReLU).
/// Uses the threads set with cls_threads_configure.
void cls_direct_conv2d(const float *input, int in_h, int in_w, int in_channels, const float *packed,
                       const float *bias, int kernel_h, int kernel_w, int stride_h, int stride_w, int pad_top,
                       int pad_left, const float *slopes, float *output, int out_h, int out_w, int out_channels,
                       float lower, float upper);

/// Max pooling without padding over an NHWC map: out(y,x,c) = max of in over rows
/// [y*sh, min(y*sh+kh, in_h)) and columns likewise (windows clipped at the bottom and right, as
/// PyTorch's ceil mode needs). Single-threaded.
void cls_max_pool(const float *input, int in_h, int in_w, int channels, int kernel_h, int kernel_w, int stride_h,
                  int stride_w, float *output, int out_h, int out_w);

/// Floats of scratch one pipeline of cls_pointwise_depthwise needs: the expanded rows under one
/// band of band_rows output rows, and when it `quantizes`, the band's own depthwise output (for
/// the paths that quantize after the convolution).
size_t cls_pointwise_depthwise_scratch(int in_w, int mid_c, int kernel_h, int stride_h, int band_rows, int out_w,
                                       int quantizes);
/// A pointwise convolution (in_c -> mid_c, packed as for cls_gemm_packed, clamp pw_lower/upper)
/// followed by a depthwise one (as cls_depthwise_conv2d, clamp dw_lower/upper), computed in
/// bands of band_rows output rows so the expanded map only ever exists a few rows at a time in
/// scratch. The depthwise output goes to `output` as floats, or, when `q` is not NULL, to q as
/// cls_depthwise_conv2d_u8 writes it (uint8 rows q_stride bytes apart, quantized with
/// q_multipliers and q_zero_point; `output` unused). With n threads configured, up to n pipelines
/// run, as many as fit in scratch_floats (one needs cls_pointwise_depthwise_scratch floats). Same
/// result as running the two in turn.
void cls_pointwise_depthwise(const float *input, int in_h, int in_w, int in_c, const float *pw_packed,
                             const float *pw_bias, int mid_c, float pw_lower, float pw_upper,
                             const float *dw_weights, const float *dw_bias, int kernel_h, int kernel_w, int stride_h,
                             int stride_w, int pad_top, int pad_left, float dw_lower, float dw_upper, float *output,
                             const float *q_multipliers, int q_zero_point, uint8_t *q, size_t q_stride, int out_h,
                             int out_w, int band_rows, float *scratch, size_t scratch_floats);

/// Dot products of fp32 vectors with binary16 rows (little-endian IEEE half bits, e.g. stored
/// feature prints): out[q * count + r] = sum_k queries[q * dim + k] * half(rows[r * dim + k]).
/// Used by TagIndex similarity search and near-duplicate grouping.
void cls_half_dot_block(const float *queries, size_t query_count, const uint16_t *rows, size_t count, size_t dim,
                        float *out);

/// out[i] = the binary16 value of the little-endian half at byte 2 * i of `halves` (any
/// alignment), for i < count: exact for finite values, F16C where the CPU has it (the same
/// values as the portable conversion). Used to widen fp16 weight files.
void cls_halves_to_floats(const void *halves, size_t count, float *out);

/// Bytes before a print sketch's codes: offset, step, error bound (little-endian floats), mode (uint32).
#define CLS_SKETCH_HEADER_BYTES 16

/// Dot products of an fp32 query with 4-bit print sketches (TagIndex's PrintSketch), each
/// CLS_SKETCH_HEADER_BYTES + dim / 2 bytes: out[r] = sum_k query[k] * value(sketch r, k). With c
/// the 4-bit code of value k and f(n) = n (mode bit 0 clear) or n * n (set), value = offset +
/// step * f(c); with mode bit 1 set, value = 0 for c = 0 and offset + step * f(c - 1) otherwise.
/// dim is a multiple of 32: byte j of each 16-byte group of codes holds value j of the group's 32
/// in its low nibble and value 16 + j in its high nibble.
void cls_sketch_dot_block(const float *query, const uint8_t *sketches, size_t count, size_t dim, float *out);

/// Variants of the int8 kernels: portable C, AVX2 (vpmaddubsw), AVX-VNNI (256-bit vpdpbusd),
/// AVX-512 VNNI (512-bit vpdpbusd).
enum { CLS_INT8_PORTABLE = 0, CLS_INT8_AVX2 = 1, CLS_INT8_AVX_VNNI = 2, CLS_INT8_AVX512_VNNI = 3 };
/// Bit v set when the CPU and OS can run int8 variant v (cpuid 7.0 ECX bit 11, 7.1 EAX bit 4).
int cls_cpu_int8_variants(void);
/// 1 when the CPU and OS can run int8 variant `variant`, else 0.
int cls_cpu_has_int8_variant(int variant);
/// "avx512-vnni", "avx-vnni", "avx2" or "portable".
const char *cls_int8_variant_name(int variant);
/// The int8 variant the kernels use now on this thread: the best one the kernel level allows
/// (avx512: AVX-512 VNNI, else AVX-VNNI; avx2: vpmaddubsw, as on a CPU without VNNI; portable:
/// C), lowered by CLASSIFY_INT8_KERNELS=avx512-vnni|avx-vnni|avx2|portable when that is set.
int cls_int8_variant(void);

/// Bytes of row stride cls_quantize_u8 writes for rows of k values: k rounded up to 4 (the
/// int8 kernels read activations four at a time).
size_t cls_qgemm_row_bytes(size_t k);
/// q[r][i] = clamp(round_even(x[r][i] * multipliers[i]) + zero_point, 0, 255) for r < rows, i < k
/// (x row stride ldx floats, q row stride ldq bytes >= cls_qgemm_row_bytes(k); multipliers: k
/// values, the inverse scale divided by each channel's smoothing factor); the bytes of each row
/// past k are set to zero_point. NaN quantizes to 0.
void cls_quantize_u8(const float *x, size_t rows, size_t k, size_t ldx, const float *multipliers, int zero_point,
                     uint8_t *q, size_t ldq);
/// Symmetric per-output-channel int8 weights of fp32 weights [n][k] (at model load):
/// scales[j] = max_i |w[j][i]| / 127 and values[j][i] = clamp(round_even(w[j][i] / scales[j]),
/// -127, 127); a row whose largest magnitude is 0 or not finite gets zeros and scale 1. NaN
/// weights are passed over in the maximum and quantize to 0.
void cls_quantize_weights(const float *weights, size_t n, size_t k, int8_t *values, float *scales);
/// largest[i] = max_j |w[j][i]| over the rows of fp32 weights [n][k] (NaN passed over).
void cls_weight_column_max_abs(const float *weights, size_t n, size_t k, float *largest);
/// Bytes needed by cls_qgemm_pack_weights: n rounded up to 16 times k rounded up to 4.
size_t cls_qgemm_packed_bytes(size_t k, size_t n);
/// Packs int8 weights [n][k] into panels of 16 output channels, each holding groups of 4
/// inputs: packed[n/16][k/4][16][4] (the operand layout of vpdpbusd), zero past n and k.
void cls_qgemm_pack_weights(const int8_t *weights, size_t k, size_t n, int8_t *packed);
/// Integer GEMM with a float store, for the int8 pointwise convolutions and the classifier:
/// acc[i][j] = sum_p q[i][p] * w[j][p] - offset[j] (exact, int32), with q from cls_quantize_u8 (row
/// stride ldq) and offset[j] = zero_point * sum_p w[j][p];
/// c[i][j] = clamp(fma((float)acc[i][j], scale[j], bias[j]), lower, upper) and then, when residual
/// is not NULL, c[i][j] = clamp(c[i][j] + residual[i][j], residual_lower, residual_upper).
/// scale, offset and bias hold n values; c and residual have row stride ldc. Runs the variant
/// cls_int8_variant() names on the threads set with cls_threads_configure.
void cls_qgemm(size_t m, size_t n, size_t k, const uint8_t *q, size_t ldq, const int8_t *packed,
               const int32_t *offset, const float *scale, const float *bias, float lower, float upper,
               const float *residual, float residual_lower, float residual_upper, float *c, size_t ldc);
/// cls_qgemm on the given variant (tests); the caller checks cls_cpu_has_int8_variant first.
void cls_qgemm_variant(int variant, size_t m, size_t n, size_t k, const uint8_t *q, size_t ldq,
                       const int8_t *packed, const int32_t *offset, const float *scale, const float *bias,
                       float lower, float upper, const float *residual, float residual_lower,
                       float residual_upper, float *c, size_t ldc);
/// cls_quantize_u8 on the given variant's vector width (tests).
void cls_quantize_u8_variant(int variant, const float *x, size_t rows, size_t k, size_t ldx, const float *multipliers,
                             int zero_point, uint8_t *q, size_t ldq);

#endif
