/* What the CUDA sources share: the one stream and cuBLAS handle, error checks, launch shapes,
 * tensor layouts for strided kernels, float/double maths, and the kernels' declarations (each
 * kernel is a template instantiated for float and double in its own .cu file). */
#ifndef FUSED_CUDA_COMMON_CUH
#define FUSED_CUDA_COMMON_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

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

/* Scratch memory for one op, given back when it goes out of scope: the one stream orders the
 * op's queued work before any later use of the block. Check ptr before use. */
struct Scratch {
  void *ptr;
  Scratch(const char *fn, size_t bytes) : ptr(cuda_alloc(fn, bytes)) {}
  ~Scratch() { if (ptr) cuda_free(ptr); }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  template <typename U> U *as() const { return (U *)ptr; }
};

/* copy.cu: the values of a contiguous device tensor, on the host (this waits for the device).
 * Ops that take index values check them there, with the CPU's messages. */
template <typename T> int cuda_read(const char *fn, const fused_tensor *t, std::vector<T> *out);

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
  for (int32_t d = l.ndim - 1; d > 0; d--) {
    offset += linear % l.sizes[d] * l.strides[d];
    linear /= l.sizes[d];
  }
  return offset + linear * l.strides[0]; /* linear < sizes[0] by now: no division needed */
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

/* op(v) over the block's THREADS threads (blockDim.x == THREADS), combined in a fixed tree
 * order so that the result has the same bits on every run; every thread receives it. */
template <typename T, typename Op>
__device__ T block_reduce(T v, Op op) {
  __shared__ T partial[THREADS];
  partial[threadIdx.x] = v;
  __syncthreads();
  const unsigned t = threadIdx.x;
  for (unsigned half = THREADS / 2; half > 0; half /= 2) {
    if (t < half) partial[t] = op(partial[t], partial[t + half]);
    __syncthreads();
  }
  const T result = partial[0];
  __syncthreads(); /* partial may be reused by the next call */
  return result;
}
struct Add {
  template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct Max {
  template <typename T> __device__ T operator()(T a, T b) const { return a > b || a != a ? a : b; }
};

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

template <typename T>
int cuda_sgd_step(fused_tensor *param, fused_tensor *momentum_buffer, const fused_tensor *grad,
                  double lr, double momentum, double weight_decay, int32_t init_buffer);
template <typename T>
int cuda_rmsprop_step(fused_tensor *param, fused_tensor *square_avg,
                      fused_tensor *momentum_buffer, const fused_tensor *grad, double lr,
                      double alpha, double eps, double momentum, double weight_decay);
template <typename T>
int cuda_adam_step(fused_tensor *param, fused_tensor *exp_avg, fused_tensor *exp_avg_sq,
                   const fused_tensor *grad, double lr, double beta1, double beta2, double eps,
                   double weight_decay, int64_t step);
template <typename T> int cuda_sum_squares(double *out, const fused_tensor *t);
template <typename T>
int cuda_cross_entropy_forward(fused_tensor *loss, const fused_tensor *logits,
                               const fused_tensor *targets);
template <typename T>
int cuda_cross_entropy_backward(fused_tensor *d_logits, const fused_tensor *logits,
                                const fused_tensor *targets, double grad_loss);
template <typename T>
int cuda_embedding_forward(fused_tensor *out, const fused_tensor *weight,
                           const fused_tensor *indices);
template <typename T>
int cuda_embedding_backward(fused_tensor *grad_weight, const fused_tensor *grad_out,
                            const fused_tensor *indices);

template <typename T>
int cuda_lltm_forward(fused_tensor *new_h, fused_tensor *new_c, fused_tensor *saved,
                      const fused_tensor *x, const fused_tensor *h, const fused_tensor *c,
                      const fused_tensor *W, const fused_tensor *b);
template <typename T>
int cuda_lltm_backward(fused_tensor *d_x, fused_tensor *d_h, fused_tensor *d_c,
                       fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *grad_h,
                       const fused_tensor *grad_c, const fused_tensor *saved,
                       const fused_tensor *x, const fused_tensor *h, const fused_tensor *W,
                       int32_t accumulate);
template <typename T>
int cuda_lltm_seq_forward(fused_tensor *hs, fused_tensor *c_T, fused_tensor *saved,
                          const fused_tensor *xs, const fused_tensor *h0, const fused_tensor *c0,
                          const fused_tensor *W, const fused_tensor *b);
template <typename T>
int cuda_lltm_seq_backward(fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                           fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *d_hs,
                           const fused_tensor *d_hT, const fused_tensor *d_cT,
                           fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                           const fused_tensor *hs, const fused_tensor *W, int32_t accumulate);

/* copy.cu: the device's copy (within the device, or between it and the host). */
int cuda_copy(fused_tensor *dst, const fused_tensor *src);

/* kernels.cu: the tables registered by fused_cuda_init. */
extern const fused_kernels cuda_float_kernels, cuda_double_kernels;

#endif
