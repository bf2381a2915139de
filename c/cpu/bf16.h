/* bfloat16 GEMM operands for the sequence engine's compute mode FUSED_COMPUTE_BFLOAT16
 * (c/cpu/generic/rnn.h): PyTorch's CPU autocast rule, the products' operands rounded to
 * bfloat16 and accumulated in float32, everything else float32.
 *
 * Rounding is the AVX512_BF16 instruction's (vcvtneps2bf16): to nearest even, subnormals to
 * zero (sign kept), NaN quiet; written once as fused_bf16_compute_bits (c/maths/convert.h),
 * which CUDA's engine (cuda/rnn.cu) rounds with too. On the native path (cpu_bf16_native:
 * the avx512 kernels run and the CPU has AVX512_BF16; oneDNN linked) operands are stored as
 * bfloat16 and multiplied by vdpbf16ps: the products over all steps by oneDNN's matmul, the
 * per-step ones by this file's packed kernel. Elsewhere the same rounded values are stored as
 * float32 and multiplied by the float32 kernels, so every CPU multiplies the same operands. */
#ifndef FUSED_CPU_BF16_H
#define FUSED_CPU_BF16_H
#include <stdbool.h>
#include <stdint.h>

typedef uint16_t bf16;

/* Whether bfloat16 products run natively now (c/cpu/capability.c: follows the active vector
 * path, so FUSED_CPU_CAPABILITY=avx2 or default takes the float32 fallback). */
bool cpu_bf16_native(void);

/* dst (rows×cols, row stride ld_dst) = src rounded; cpu_bf16_round keeps float32. With cols
 * odd and room in the stride, cpu_bf16_convert writes a zero after each row (for the packed
 * product's pairs). */
void cpu_bf16_convert(bf16 *dst, int64_t ld_dst, const float *src, int64_t ld_src,
                      int64_t rows, int64_t cols);
void cpu_bf16_round(float *dst, int64_t ld_dst, const float *src, int64_t ld_src, int64_t rows,
                    int64_t cols);

/* The per-step products (native path only): B (k×n) converted and packed once, into panels
 * of 32 columns by pairs of k (vdpbf16ps multiplies pairs); A bf16 rows of k elements with an
 * even row stride lda, and a zero after the last element when k is odd. C (m×n, ldc) = A·B,
 * or += with add. */
int64_t cpu_bf16_packed_size(int64_t k, int64_t n);
void cpu_bf16_pack(bf16 *bp, const float *b, int64_t ldb, int64_t k, int64_t n, bool transposed);
void cpu_bf16_packed_gemm(int64_t m, int64_t n, int64_t k, const bf16 *a, int64_t lda,
                          const bf16 *bp, bool add, float *c, int64_t ldc);

/* The products over all steps (native path only): c (m×n, ldc, float32) = op(a)·op(b)
 * + beta·c, row-major bf16 operands, beta 0 or 1; on oneDNN's matmul, its primitives cached by
 * shape. -1 with the error set (naming fn) when oneDNN fails. */
int cpu_bf16_gemm(const char *fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const bf16 *a,
                  int64_t lda, const bf16 *b, int64_t ldb, float beta, float *c, int64_t ldc);
#endif
