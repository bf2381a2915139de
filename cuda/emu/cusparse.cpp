/* cusparse.h in plain loops: each row of C is its sparse row of A times B, the nonzeros in
 * their stored order, so the same input gives the same bits on every run (as CSR_ALG2 does). */
#include "cusparse.h"
#include "device.h"

struct cusparseContext {
  cudaStream_t stream;
};
struct cusparseSpMat {
  int64_t rows, cols, nnz;
  const void *offsets, *columns, *values;
  cusparseIndexType_t offset_type, column_type;
  cusparseIndexBase_t base;
  cudaDataType type;
};
struct cusparseDnMat {
  int64_t rows, cols, ld;
  void *values;
  cudaDataType type;
  cusparseOrder_t order;
};

namespace {

bool valid_type(cudaDataType t) { return t == CUDA_R_32F || t == CUDA_R_64F; }

int64_t index_at(const void *p, cusparseIndexType_t type, int64_t i) {
  return type == CUSPARSE_INDEX_64I ? ((const int64_t *)p)[i] : ((const int32_t *)p)[i];
}

/* Element (r, c) of a dense matrix. */
template <typename T> T &at(const cusparseDnMat *m, int64_t r, int64_t c) {
  T *v = (T *)m->values;
  return m->order == CUSPARSE_ORDER_ROW ? v[r * m->ld + c] : v[c * m->ld + r];
}

template <typename T> void spmm(T alpha, const cusparseSpMat *a, const cusparseDnMat *b, T beta,
                                cusparseDnMat *c) {
  const int64_t base = a->base == CUSPARSE_INDEX_BASE_ONE;
  for (int64_t r = 0; r < a->rows; r++)
    for (int64_t j = 0; j < c->cols; j++) {
      T acc = 0;
      const int64_t end = index_at(a->offsets, a->offset_type, r + 1) - base;
      for (int64_t e = index_at(a->offsets, a->offset_type, r) - base; e < end; e++)
        acc += ((const T *)a->values)[e] * at<T>(b, index_at(a->columns, a->column_type, e) - base, j);
      T &out = at<T>(c, r, j);
      out = beta == 0 ? alpha * acc : alpha * acc + beta * out;
    }
}

/* cuSPARSE's checks: the shapes agree, one value type, non-transposed operands. */
cusparseStatus_t check_spmm(cusparseHandle_t handle, cusparseOperation_t op_a,
                            cusparseOperation_t op_b, const void *alpha,
                            cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                            const void *beta, cusparseDnMatDescr_t c, cudaDataType type) {
  if (!handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!alpha || !beta || !a || !b || !c) return CUSPARSE_STATUS_INVALID_VALUE;
  if (op_a != CUSPARSE_OPERATION_NON_TRANSPOSE || op_b != CUSPARSE_OPERATION_NON_TRANSPOSE)
    return CUSPARSE_STATUS_NOT_SUPPORTED;
  if (a->cols != b->rows || a->rows != c->rows || b->cols != c->cols)
    return CUSPARSE_STATUS_INVALID_VALUE;
  if (a->type != type || b->type != type || c->type != type) return CUSPARSE_STATUS_NOT_SUPPORTED;
  return emu::stream_is_valid(handle->stream) ? CUSPARSE_STATUS_SUCCESS
                                              : CUSPARSE_STATUS_INVALID_VALUE;
}

cusparseStatus_t make_dense(cusparseDnMat **descr, int64_t rows, int64_t cols, int64_t ld,
                            const void *values, cudaDataType type, cusparseOrder_t order) {
  if (!descr || rows < 0 || cols < 0 || !valid_type(type) ||
      (order != CUSPARSE_ORDER_ROW && order != CUSPARSE_ORDER_COL) ||
      ld < (order == CUSPARSE_ORDER_ROW ? cols : rows) || (!values && rows * cols > 0))
    return CUSPARSE_STATUS_INVALID_VALUE;
  *descr = new cusparseDnMat{rows, cols, ld, (void *)values, type, order};
  return CUSPARSE_STATUS_SUCCESS;
}

} // namespace

cusparseStatus_t cusparseCreate(cusparseHandle_t *handle) {
  if (!handle) return CUSPARSE_STATUS_INVALID_VALUE;
  *handle = new cusparseContext{nullptr};
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroy(cusparseHandle_t handle) {
  delete handle;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t stream) {
  if (!handle) return CUSPARSE_STATUS_NOT_INITIALIZED;
  if (!emu::stream_is_valid(stream)) return CUSPARSE_STATUS_INVALID_VALUE;
  handle->stream = stream;
  return CUSPARSE_STATUS_SUCCESS;
}

const char *cusparseGetErrorName(cusparseStatus_t status) {
  switch (status) {
    case CUSPARSE_STATUS_SUCCESS: return "CUSPARSE_STATUS_SUCCESS";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "CUSPARSE_STATUS_NOT_INITIALIZED";
    case CUSPARSE_STATUS_INVALID_VALUE: return "CUSPARSE_STATUS_INVALID_VALUE";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "CUSPARSE_STATUS_NOT_SUPPORTED";
  }
  return "CUSPARSE_STATUS_UNKNOWN";
}

const char *cusparseGetErrorString(cusparseStatus_t status) {
  switch (status) {
    case CUSPARSE_STATUS_SUCCESS: return "success";
    case CUSPARSE_STATUS_NOT_INITIALIZED: return "initialization error";
    case CUSPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case CUSPARSE_STATUS_NOT_SUPPORTED: return "operation not supported";
  }
  return "unknown error";
}

cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t *descr, int64_t rows,
                                        int64_t cols, int64_t nnz, const void *offsets,
                                        const void *columns, const void *values,
                                        cusparseIndexType_t offset_type,
                                        cusparseIndexType_t column_type,
                                        cusparseIndexBase_t base, cudaDataType type) {
  if (!descr || rows < 0 || cols < 0 || nnz < 0 || !offsets || (nnz > 0 && (!columns || !values)) ||
      !valid_type(type) || (base != CUSPARSE_INDEX_BASE_ZERO && base != CUSPARSE_INDEX_BASE_ONE))
    return CUSPARSE_STATUS_INVALID_VALUE;
  *descr = new cusparseSpMat{rows, cols, nnz, offsets, columns, values, offset_type, column_type,
                             base, type};
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t descr) {
  delete descr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *descr, int64_t rows, int64_t cols,
                                     int64_t ld, void *values, cudaDataType type,
                                     cusparseOrder_t order) {
  return make_dense(descr, rows, cols, ld, values, type, order);
}

cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t *descr, int64_t rows,
                                          int64_t cols, int64_t ld, const void *values,
                                          cudaDataType type, cusparseOrder_t order) {
  if (!descr) return CUSPARSE_STATUS_INVALID_VALUE;
  cusparseDnMat *d = nullptr;
  const cusparseStatus_t status = make_dense(&d, rows, cols, ld, values, type, order);
  *descr = d;
  return status;
}

cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t descr) {
  delete descr;
  return CUSPARSE_STATUS_SUCCESS;
}

cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t op_a,
                                         cusparseOperation_t op_b, const void *alpha,
                                         cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                                         const void *beta, cusparseDnMatDescr_t c,
                                         cudaDataType type, cusparseSpMMAlg_t alg, size_t *bytes) {
  if (!bytes) return CUSPARSE_STATUS_INVALID_VALUE;
  *bytes = 0;
  return check_spmm(handle, op_a, op_b, alpha, a, b, beta, c, type);
}

cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t op_a,
                              cusparseOperation_t op_b, const void *alpha,
                              cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                              const void *beta, cusparseDnMatDescr_t c, cudaDataType type,
                              cusparseSpMMAlg_t alg, void *buffer) {
  const cusparseStatus_t status = check_spmm(handle, op_a, op_b, alpha, a, b, beta, c, type);
  if (status != CUSPARSE_STATUS_SUCCESS) return status;
  if (type == CUDA_R_32F) spmm(*(const float *)alpha, a, b, *(const float *)beta, c);
  else spmm(*(const double *)alpha, a, b, *(const double *)beta, c);
  return CUSPARSE_STATUS_SUCCESS;
}
