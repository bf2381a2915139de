/* out = beta * bias + alpha * a @ b on cuBLAS. cuBLAS is column-major: a row-major matrix is
 * its column-major transpose, so out^T = b^T a^T is computed with the operands swapped. */
#include "common.cuh"
#include "../c/maths/gemm.h"

cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
                    const float *a, int lda, const float *b, int ldb, float beta, float *c,
                    int ldc) {
  return cublasSgemm(cuda_blas, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    double alpha, const double *a, int lda, const double *b, int ldb,
                    double beta, double *c, int ldc) {
  return cublasDgemm(cuda_blas, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
                    const fused_bfloat16 *a, int lda, const fused_bfloat16 *b, int ldb,
                    float beta, float *c, int ldc) {
  return cublasGemmEx(cuda_blas, ta, tb, m, n, k, &alpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF,
                      ldb, &beta, c, CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

cublasStatus_t gemm_strided(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            float alpha, const float *a, int lda, long long sa, const float *b,
                            int ldb, long long sb, float beta, float *c, int ldc, long long sc,
                            int batches) {
  return cublasSgemmStridedBatched(cuda_blas, ta, tb, m, n, k, &alpha, a, lda, sa, b, ldb, sb,
                                   &beta, c, ldc, sc, batches);
}

cublasStatus_t gemm_strided(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            double alpha, const double *a, int lda, long long sa,
                            const double *b, int ldb, long long sb, double beta, double *c,
                            int ldc, long long sc, int batches) {
  return cublasDgemmStridedBatched(cuda_blas, ta, tb, m, n, k, &alpha, a, lda, sa, b, ldb, sb,
                                   &beta, c, ldc, sc, batches);
}

cublasStatus_t gemm_strided(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            float alpha, const fused_bfloat16 *a, int lda, long long sa,
                            const fused_bfloat16 *b, int ldb, long long sb, float beta, float *c,
                            int ldc, long long sc, int batches) {
  return cublasGemmStridedBatchedEx(cuda_blas, ta, tb, m, n, k, &alpha, a, CUDA_R_16BF, lda, sa,
                                    b, CUDA_R_16BF, ldb, sb, &beta, c, CUDA_R_32F, ldc, sc,
                                    batches, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

/* The operand as the swapped call reads it (gemm_layout_of): a row-major operand as is (OP_N),
 * a transposed view of one, column-major, transposed (OP_T). */
static void gemm_operand(const fused_tensor *t, cublasOperation_t *op, int *ld) {
  gemm_layout layout = {0, 0};
  gemm_layout_of(t, &layout);
  *op = layout.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  *ld = (int)layout.ld;
}

/* out[i] = beta * bias[i % period]: a bias row repeated (period = columns) or a matrix. */
template <typename T>
__global__ void scaled_bias_kernel(T *out, const T *bias, T beta, int64_t period, int64_t n) {
  GRID_STRIDE(i, n) out[i] = beta * bias[i % period];
}

template <typename T>
int cuda_addmm(fused_tensor *out, const fused_tensor *bias, const fused_tensor *a,
               const fused_tensor *b, double beta, double alpha) {
  const char *fn = bias ? "addmm" : "matmul";
  const int64_t m = out->sizes[0], n = out->sizes[1], k = a->sizes[1];
  if (m == 0 || n == 0) return 0; /* nothing to write; k == 0 leaves cuBLAS to write beta * y */
  T *y = (T *)out->data;
  double gemm_beta = 0;
  if (beta == 0) bias = NULL; /* ignored, NaN and inf in it too, as PyTorch and Torch7 do */
  if (bias && bias->ndim == 2 && bias->data == out->data) {
    gemm_beta = beta; /* out already holds the bias: cuBLAS scales it */
  } else if (bias) {
    const int64_t period = bias->ndim == 1 ? n : m * n;
    FUSED_LAUNCH(blocks_for(m * n), THREADS, 0, cuda_stream, scaled_bias_kernel<T>)(
        y, (const T *)bias->data, (T)beta, period, m * n);
    FUSED_TRY(cuda_check(fn, cudaGetLastError()));
    gemm_beta = 1;
  }
  cublasOperation_t op_a, op_b;
  int lda, ldb;
  gemm_operand(a, &op_a, &lda);
  gemm_operand(b, &op_b, &ldb);
  FUSED_TRY(cuda_check_blas(fn, gemm(op_b, op_a, (int)n, (int)m, (int)k, (T)alpha,
                                     (const T *)b->data, ldb, (const T *)a->data, lda,
                                     (T)gemm_beta, y, (int)n)));
  return cuda_done(fn);
}

FUSED_KERNELS_ADDMM(FUSED_CUDA_INSTANTIATE_FLOATING)
