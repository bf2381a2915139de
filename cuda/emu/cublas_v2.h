/* The CUDA emulator's cuBLAS: the calls fused makes (and extensions may), column-major as
 * cuBLAS is, on OpenBLAS. Every check cuBLAS makes of the sizes and leading dimensions is made,
 * with its status. The math mode is recorded only: float32 products are plain float32.
 * cublasGemmEx runs the one combination fused asks for (bfloat16 A and B, float32 C and
 * compute: each bfloat16 widened exactly to float32, then the float32 product) and refuses the
 * others, as cuBLAS refuses what it lacks. */
#ifndef FUSED_CUDA_EMU_CUBLAS_H
#define FUSED_CUDA_EMU_CUBLAS_H

#include "cuda_runtime.h"

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };
enum cublasMath_t { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
enum cublasComputeType_t { CUBLAS_COMPUTE_32F = 68 };
enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1 };

struct cublasContext;
typedef cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);

/* C = alpha·op(A)·op(B) + beta·C, column-major; beta = 0 does not read C (NaN there vanishes). */
cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *alpha, const float *a, int lda,
                           const float *b, int ldb, const float *beta, float *c, int ldc);
cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const double *alpha, const double *a, int lda,
                           const double *b, int ldb, const double *beta, double *c, int ldc);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *alpha, const float *a, int lda,
                                         long long stride_a, const float *b, int ldb,
                                         long long stride_b, const float *beta, float *c, int ldc,
                                         long long stride_c, int batches);
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const double *alpha, const double *a, int lda,
                                         long long stride_a, const double *b, int ldb,
                                         long long stride_b, const double *beta, double *c,
                                         int ldc, long long stride_c, int batches);
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                            int m, int n, int k, const void *alpha, const void *a,
                            cudaDataType_t a_type, int lda, const void *b, cudaDataType_t b_type,
                            int ldb, const void *beta, void *c, cudaDataType_t c_type, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void *alpha, const void *a, cudaDataType_t a_type,
                                          int lda, long long stride_a, const void *b,
                                          cudaDataType_t b_type, int ldb, long long stride_b,
                                          const void *beta, void *c, cudaDataType_t c_type,
                                          int ldc, long long stride_c, int batches,
                                          cublasComputeType_t compute, cublasGemmAlgo_t algo);

#endif
