/* out = relu?(S @ x + bias) for a CSR matrix S on cuSPARSE's generic SpMM: out is filled with
 * the bias rows, SpMM adds S @ x into it (beta = 1), and the relu is a pass of its own. The
 * structure is read to the host and checked first, as the CPU checks it; cuSPARSE counts
 * indices from 0, so the columns go through a scratch copy, less one. */
#include <cusparse.h>

#include <type_traits>

#include "common.cuh"
#include "../c/core/check.h"

/* Made on first use, on the one stream. */
static cusparseHandle_t sparse_handle;

static int check_sparse(const char *fn, cusparseStatus_t status) {
  if (status == CUSPARSE_STATUS_SUCCESS) return 0;
  return fused_error("%s: cuSPARSE error %s (%s)", fn, cusparseGetErrorName(status),
                     cusparseGetErrorString(status));
}

template <typename T>
__global__ void bias_rows_kernel(T *out, const T *bias, int64_t cols, int64_t n) {
  GRID_STRIDE(i, n) out[i] = bias[i % cols];
}

__global__ void less_one_kernel(int64_t *dst, const int64_t *src, int64_t n) {
  GRID_STRIDE(i, n) dst[i] = src[i] - 1;
}

/* The descriptors of one call, destroyed with it (the work they describe is already queued). */
struct SpmmDescriptors {
  cusparseConstSpMatDescr_t s = nullptr;
  cusparseConstDnMatDescr_t x = nullptr;
  cusparseDnMatDescr_t out = nullptr;
  ~SpmmDescriptors() {
    if (s) cusparseDestroySpMat(s);
    if (x) cusparseDestroyDnMat(x);
    if (out) cusparseDestroyDnMat(out);
  }
};

template <typename T>
int cuda_spmm(fused_tensor *out, const fused_tensor *row_ptr, const fused_tensor *col_idx,
              const fused_tensor *values, const fused_tensor *x, const fused_tensor *bias,
              int32_t relu) {
  const char *fn = "spmm";
  const int64_t n = out->sizes[0], k = out->sizes[1], m = x->sizes[0], nnz = values->sizes[0];
  std::vector<int64_t> offsets, columns;
  FUSED_TRY(cuda_read(fn, row_ptr, &offsets));
  FUSED_TRY(cuda_read(fn, col_idx, &columns));
  FUSED_TRY(check_csr(fn, offsets.data(), n, columns.data(), nnz, m));
  if (!sparse_handle) {
    FUSED_TRY(check_sparse(fn, cusparseCreate(&sparse_handle)));
    FUSED_TRY(check_sparse(fn, cusparseSetStream(sparse_handle, cuda_stream)));
  }

  Scratch columns0(fn, (size_t)nnz * sizeof(int64_t));
  if (!columns0.ptr) return -1;
  FUSED_LAUNCH(blocks_for(nnz), THREADS, 0, cuda_stream, less_one_kernel)(
      columns0.as<int64_t>(), (const int64_t *)col_idx->data, nnz);
  FUSED_TRY(cuda_check(fn, cudaGetLastError()));
  T *y = (T *)out->data;
  if (bias) {
    FUSED_LAUNCH(blocks_for(n * k), THREADS, 0, cuda_stream, bias_rows_kernel<T>)(
        y, (const T *)bias->data, k, n * k);
    FUSED_TRY(cuda_check(fn, cudaGetLastError()));
  }

  const cudaDataType type = std::is_same<T, float>::value ? CUDA_R_32F : CUDA_R_64F;
  SpmmDescriptors d;
  FUSED_TRY(check_sparse(fn, cusparseCreateConstCsr(&d.s, n, m, nnz, row_ptr->data,
                                                    columns0.ptr, values->data,
                                                    CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I,
                                                    CUSPARSE_INDEX_BASE_ZERO, type)));
  FUSED_TRY(check_sparse(fn, cusparseCreateConstDnMat(&d.x, m, k, k, x->data, type,
                                                      CUSPARSE_ORDER_ROW)));
  FUSED_TRY(check_sparse(fn, cusparseCreateDnMat(&d.out, n, k, k, y, type, CUSPARSE_ORDER_ROW)));
  /* CSR_ALG2 takes row-major operands and gives the same bits on every run. */
  const T alpha = 1, beta = bias ? 1 : 0;
  const cusparseSpMMAlg_t alg = CUSPARSE_SPMM_CSR_ALG2;
  const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t bytes = 0;
  FUSED_TRY(check_sparse(fn, cusparseSpMM_bufferSize(sparse_handle, op, op, &alpha, d.s, d.x,
                                                     &beta, d.out, type, alg, &bytes)));
  Scratch buffer(fn, bytes > 0 ? bytes : 1);
  if (!buffer.ptr) return -1;
  FUSED_TRY(check_sparse(fn, cusparseSpMM(sparse_handle, op, op, &alpha, d.s, d.x, &beta, d.out,
                                          type, alg, buffer.ptr)));
  if (relu) FUSED_TRY(cuda_unary<T>(FUSED_RELU, out, out, 0));
  return cuda_done(fn);
}

FUSED_KERNELS_SPARSE(FUSED_CUDA_INSTANTIATE_FLOATING)
