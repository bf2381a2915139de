/* What the CUDA sources share: the one stream and cuBLAS handle, error checks, launch shapes,
 * tensor layouts for strided kernels, float/double maths, and the kernels' declarations (each
 * kernel is a template instantiated for float and double in its own .cu file). */
#ifndef FUSED_CUDA_COMMON_CUH
#define FUSED_CUDA_COMMON_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "../c/core/backend.h"
#include "../c/core/error.h"
#include "fused_cuda.h"

/* context.cu: every op is queued on this one stream, so ops run in order and a block that the
 * allocator hands out again is only touched after the work queued before its free. */
extern cudaStream_t cuda_stream;
extern cublasHandle_t cuda_blas;

/* 0, or -1 with "op: CUDA error <name> (<text>)" set. */
int cuda_check(const char *op, cudaError_t err);
int cuda_check_blas(const char *op, cublasStatus_t status);
/* After an op's launches: checks the launch and, with FUSED_CUDA_SYNC=1, waits for the op so
 * that an asynchronous fault is blamed on the op that caused it. */
int cuda_done(const char *op);

/* allocator.cu: NULL with the error set (naming fn) when the device has no room. */
void *cuda_alloc(const char *fn, size_t bytes);
void cuda_free(void *ptr);

/* Grid-stride loops: enough blocks to fill the device, each thread then strides. */
constexpr int THREADS = 256;
inline unsigned blocks_for(int64_t n) {
  return (unsigned)std::max<int64_t>(1, std::min<int64_t>((n + THREADS - 1) / THREADS, 8192));
}
#define GRID_STRIDE(i, n)                                                            \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);          \
       i += (int64_t)gridDim.x * blockDim.x)

/* Sizes and strides passed by value to a strided kernel; a contiguous tensor is collapsed to
 * one dim so that its offsets are its linear indices. */
struct Layout {
  int32_t ndim;
  int64_t sizes[FUSED_MAX_DIMS];
  int64_t strides[FUSED_MAX_DIMS];
};
Layout layout_of(const fused_tensor *t);

/* The offset of the linear-th element (row-major order) of a tensor with layout l. */
__device__ inline int64_t offset_of(const Layout &l, int64_t linear) {
  int64_t offset = 0;
  for (int32_t d = l.ndim - 1; d >= 0; d--) {
    offset += linear % l.sizes[d] * l.strides[d];
    linear /= l.sizes[d];
  }
  return offset;
}

/* Maths picked by type, so that float code never calls a double function nor the reverse
 * (fminf on doubles is how the tutorial's kernel went wrong). */
__device__ inline float dexp(float x) { return expf(x); }
__device__ inline double dexp(double x) { return exp(x); }
__device__ inline float dexpm1(float x) { return expm1f(x); }
__device__ inline double dexpm1(double x) { return expm1(x); }
__device__ inline float dlog(float x) { return logf(x); }
__device__ inline double dlog(double x) { return log(x); }
__device__ inline float dtanh(float x) { return tanhf(x); }
__device__ inline double dtanh(double x) { return tanh(x); }
__device__ inline float dsqrt(float x) { return sqrtf(x); }
__device__ inline double dsqrt(double x) { return sqrt(x); }
__device__ inline float dabs(float x) { return fabsf(x); }
__device__ inline double dabs(double x) { return fabs(x); }
__device__ inline float dpow(float x, float y) { return powf(x, y); }
__device__ inline double dpow(double x, double y) { return pow(x, y); }

template <typename T>
__device__ inline T dsigmoid(T z) {
  return T(1) / (T(1) + dexp(-z)); /* exp overflow gives 1/inf = 0, the right limit */
}

/* cuBLAS in column-major terms, one name for both dtypes. */
cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
                    const float *a, int lda, const float *b, int ldb, float beta, float *c,
                    int ldc);
cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                    double alpha, const double *a, int lda, const double *b, int ldb,
                    double beta, double *c, int ldc);

/* The kernels of struct fused_kernels (backend.h), one template per op. */
template <typename T> int cuda_fill(fused_tensor *t, double value);
template <typename T>
int cuda_unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha);
template <typename T>
int cuda_binary(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                const fused_tensor *b);
template <typename T>
int cuda_binary_scalar(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                       double scalar);
template <typename T>
int cuda_addmm(fused_tensor *out, const fused_tensor *bias, const fused_tensor *a,
               const fused_tensor *b, double beta, double alpha);
template <typename T> int cuda_sum_dim(fused_tensor *out, const fused_tensor *in, int32_t dim);
template <typename T>
int cuda_cat(fused_tensor *out, const fused_tensor *const *inputs, int32_t n, int32_t dim);

/* copy.cu: the device's copy (within the device, or between it and the host). */
int cuda_copy(fused_tensor *dst, const fused_tensor *src);

/* kernels.cu: the tables registered by fused_cuda_init. */
extern const fused_kernels cuda_float_kernels, cuda_double_kernels;

#endif
