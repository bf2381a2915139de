/* cublas_v2.h on OpenBLAS: cuBLAS's column-major GEMM is CBLAS's with CblasColMajor. */
#include <cblas.h>
#include <string.h>

#include <vector>

#include "cublas_v2.h"
#include "device.h"

struct cublasContext {
  cudaStream_t stream;
  cublasMath_t mode;
};

namespace {

CBLAS_TRANSPOSE trans(cublasOperation_t op) { return op == CUBLAS_OP_N ? CblasNoTrans : CblasTrans; }

bool valid_op(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }

/* cuBLAS's argument checks for a GEMM: sizes not negative, each leading dimension at least the
 * rows of the matrix as stored. */
cublasStatus_t check_gemm(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m,
                          int n, int k, int lda, int ldb, int ldc, int batches) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  const int rows_a = ta == CUBLAS_OP_N ? m : k, rows_b = tb == CUBLAS_OP_N ? k : n;
  if (!valid_op(ta) || !valid_op(tb) || m < 0 || n < 0 || k < 0 || batches < 0 ||
      lda < (rows_a > 1 ? rows_a : 1) || ldb < (rows_b > 1 ? rows_b : 1) ||
      ldc < (m > 1 ? m : 1))
    return CUBLAS_STATUS_INVALID_VALUE;
  return emu::stream_is_valid(handle->stream) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

/* beta = 0 writes C without reading it, as cuBLAS (and BLAS) define. */
template <typename T> void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                                T alpha, const T *a, int lda, const T *b, int ldb, T beta, T *c,
                                int ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == 0) {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) c[i + (long)j * ldc] = beta == 0 ? T(0) : beta * c[i + (long)j * ldc];
    return;
  }
  if constexpr (sizeof(T) == sizeof(float))
    cblas_sgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else
    cblas_dgemm(CblasColMajor, trans(ta), trans(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <typename T>
cublasStatus_t gemm_batched(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                            int m, int n, int k, const T *alpha, const T *a, int lda,
                            long long stride_a, const T *b, int ldb, long long stride_b,
                            const T *beta, T *c, int ldc, long long stride_c, int batches) {
  const cublasStatus_t status = check_gemm(handle, ta, tb, m, n, k, lda, ldb, ldc, batches);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < batches; i++)
    gemm(ta, tb, m, n, k, *alpha, a + i * stride_a, lda, b + i * stride_b, ldb, *beta,
         c + i * stride_c, ldc);
  return CUBLAS_STATUS_SUCCESS;
}

/* A column-major bfloat16 matrix (rows×cols, ld) as float32, each value exactly (a bfloat16's
 * bits are a float32's upper half), in rows×cols with ld = rows. */
std::vector<float> widened(const void *p, int rows, int cols, int ld) {
  std::vector<float> out((size_t)rows * cols);
  const uint16_t *bits = (const uint16_t *)p;
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) {
      const uint32_t u = (uint32_t)bits[i + (long)j * ld] << 16;
      memcpy(&out[i + (size_t)j * rows], &u, sizeof u);
    }
  return out;
}

} // namespace

cublasStatus_t cublasCreate(cublasHandle_t *handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext{nullptr, CUBLAS_DEFAULT_MATH};
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!emu::stream_is_valid(stream)) return CUBLAS_STATUS_INVALID_VALUE;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode != CUBLAS_DEFAULT_MATH && mode != CUBLAS_TF32_TENSOR_OP_MATH)
    return CUBLAS_STATUS_INVALID_VALUE;
  handle->mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
  }
  return "unknown error";
}

#define GEMM(name, T)                                                                         \
  cublasStatus_t name(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m, \
                      int n, int k, const T *alpha, const T *a, int lda, const T *b, int ldb,  \
                      const T *beta, T *c, int ldc) {                                          \
    return gemm_batched(handle, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, \
                        1);                                                                    \
  }                                                                                            \
  cublasStatus_t name##StridedBatched(                                                         \
      cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,  \
      const T *alpha, const T *a, int lda, long long stride_a, const T *b, int ldb,            \
      long long stride_b, const T *beta, T *c, int ldc, long long stride_c, int batches) {     \
    return gemm_batched(handle, ta, tb, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,    \
                        beta, c, ldc, stride_c, batches);                                      \
  }
GEMM(cublasSgemm, float)
GEMM(cublasDgemm, double)

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void *alpha, const void *a, cudaDataType_t a_type,
                                          int lda, long long stride_a, const void *b,
                                          cudaDataType_t b_type, int ldb, long long stride_b,
                                          const void *beta, void *c, cudaDataType_t c_type,
                                          int ldc, long long stride_c, int batches,
                                          cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  const cublasStatus_t status = check_gemm(handle, ta, tb, m, n, k, lda, ldb, ldc, batches);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  if (a_type != CUDA_R_16BF || b_type != CUDA_R_16BF || c_type != CUDA_R_32F ||
      compute != CUBLAS_COMPUTE_32F || algo != CUBLAS_GEMM_DEFAULT)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const int rows_a = ta == CUBLAS_OP_N ? m : k, rows_b = tb == CUBLAS_OP_N ? k : n;
  for (int i = 0; i < batches; i++) {
    const std::vector<float> wa =
        widened((const uint16_t *)a + i * stride_a, rows_a, ta == CUBLAS_OP_N ? k : m, lda);
    const std::vector<float> wb =
        widened((const uint16_t *)b + i * stride_b, rows_b, tb == CUBLAS_OP_N ? n : k, ldb);
    gemm(ta, tb, m, n, k, *(const float *)alpha, wa.data(), rows_a > 1 ? rows_a : 1, wb.data(),
         rows_b > 1 ? rows_b : 1, *(const float *)beta, (float *)c + i * stride_c, ldc);
  }
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                            int m, int n, int k, const void *alpha, const void *a,
                            cudaDataType_t a_type, int lda, const void *b, cudaDataType_t b_type,
                            int ldb, const void *beta, void *c, cudaDataType_t c_type, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t algo) {
  return cublasGemmStridedBatchedEx(handle, ta, tb, m, n, k, alpha, a, a_type, lda, 0, b, b_type,
                                    ldb, 0, beta, c, c_type, ldc, 0, 1, compute, algo);
}
