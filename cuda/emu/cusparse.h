/* The CUDA emulator's cuSPARSE: the generic SpMM over a CSR matrix and dense matrices, as fused
 * calls it (and extensions may), with cuSPARSE's checks of the descriptors. */
#ifndef FUSED_CUDA_EMU_CUSPARSE_H
#define FUSED_CUDA_EMU_CUSPARSE_H

#include "cuda_runtime.h"

enum cusparseStatus_t {
  CUSPARSE_STATUS_SUCCESS = 0,
  CUSPARSE_STATUS_NOT_INITIALIZED = 1,
  CUSPARSE_STATUS_INVALID_VALUE = 3,
  CUSPARSE_STATUS_NOT_SUPPORTED = 10,
};
enum cusparseOperation_t {
  CUSPARSE_OPERATION_NON_TRANSPOSE = 0,
  CUSPARSE_OPERATION_TRANSPOSE = 1,
};
enum cusparseIndexType_t { CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 };
enum cusparseIndexBase_t { CUSPARSE_INDEX_BASE_ZERO = 0, CUSPARSE_INDEX_BASE_ONE = 1 };
enum cusparseOrder_t { CUSPARSE_ORDER_COL = 1, CUSPARSE_ORDER_ROW = 2 };
enum cusparseSpMMAlg_t { CUSPARSE_SPMM_ALG_DEFAULT = 0, CUSPARSE_SPMM_CSR_ALG1 = 4,
                         CUSPARSE_SPMM_CSR_ALG2 = 6 };

struct cusparseContext;
typedef cusparseContext *cusparseHandle_t;
struct cusparseSpMat;
typedef cusparseSpMat *cusparseSpMatDescr_t;
typedef const cusparseSpMat *cusparseConstSpMatDescr_t;
struct cusparseDnMat;
typedef cusparseDnMat *cusparseDnMatDescr_t;
typedef const cusparseDnMat *cusparseConstDnMatDescr_t;

cusparseStatus_t cusparseCreate(cusparseHandle_t *handle);
cusparseStatus_t cusparseDestroy(cusparseHandle_t handle);
cusparseStatus_t cusparseSetStream(cusparseHandle_t handle, cudaStream_t stream);
const char *cusparseGetErrorName(cusparseStatus_t status);
const char *cusparseGetErrorString(cusparseStatus_t status);

cusparseStatus_t cusparseCreateConstCsr(cusparseConstSpMatDescr_t *descr, int64_t rows,
                                        int64_t cols, int64_t nnz, const void *offsets,
                                        const void *columns, const void *values,
                                        cusparseIndexType_t offset_type,
                                        cusparseIndexType_t column_type,
                                        cusparseIndexBase_t base, cudaDataType type);
cusparseStatus_t cusparseDestroySpMat(cusparseConstSpMatDescr_t descr);
cusparseStatus_t cusparseCreateDnMat(cusparseDnMatDescr_t *descr, int64_t rows, int64_t cols,
                                     int64_t ld, void *values, cudaDataType type,
                                     cusparseOrder_t order);
cusparseStatus_t cusparseCreateConstDnMat(cusparseConstDnMatDescr_t *descr, int64_t rows,
                                          int64_t cols, int64_t ld, const void *values,
                                          cudaDataType type, cusparseOrder_t order);
cusparseStatus_t cusparseDestroyDnMat(cusparseConstDnMatDescr_t descr);

/* C = alpha·op(A)·op(B) + beta·C for a CSR A and dense B and C (op: NON_TRANSPOSE only). */
cusparseStatus_t cusparseSpMM_bufferSize(cusparseHandle_t handle, cusparseOperation_t op_a,
                                         cusparseOperation_t op_b, const void *alpha,
                                         cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                                         const void *beta, cusparseDnMatDescr_t c,
                                         cudaDataType type, cusparseSpMMAlg_t alg, size_t *bytes);
cusparseStatus_t cusparseSpMM(cusparseHandle_t handle, cusparseOperation_t op_a,
                              cusparseOperation_t op_b, const void *alpha,
                              cusparseConstSpMatDescr_t a, cusparseConstDnMatDescr_t b,
                              const void *beta, cusparseDnMatDescr_t c, cudaDataType type,
                              cusparseSpMMAlg_t alg, void *buffer);

#endif
