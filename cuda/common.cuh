/* What the CUDA sources share: the one stream and cuBLAS handle, error checks, launch shapes,
 * tensor layouts for strided kernels, the transcendental functions behind the shared maths
 * (c/maths/), and the kernels' declarations: each kernel of c/core/kernel_list.h is a
 * template cuda_<name><T>, instantiated in its group's .cu file by FUSED_CUDA_INSTANTIATE. */
#ifndef FUSED_CUDA_COMMON_CUH
#define FUSED_CUDA_COMMON_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "../c/core/backend.h"
#include "../c/core/error.h"
#include "../c/fused_launch.h"
#include "../c/maths/hd.h"
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

/* copy.cu: the values of a contiguous int64 device tensor, on the host (this waits for the
 * device). Ops that take indices check them there, as the CPU does (check_indices). */
int cuda_read(const char *fn, const fused_tensor *t, std::vector<int64_t> *out);

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
__host__ __device__ inline int64_t offset_of(const Layout &l, int64_t linear) {
  int64_t offset = 0;
  for (int32_t d = l.ndim - 1; d > 0; d--) {
    offset += linear % l.sizes[d] * l.strides[d];
    linear /= l.sizes[d];
  }
  return offset + linear * l.strides[0]; /* linear < sizes[0] by now: no division needed */
}

/* A contiguous tensor seen as [outer, sizes[dim], inner] around dim. */
inline void outer_dim_inner(const fused_tensor *t, int32_t dim, int64_t *outer, int64_t *inner) {
  *outer = *inner = 1;
  for (int32_t d = 0; d < dim; d++) *outer *= t->sizes[d];
  for (int32_t d = dim + 1; d < t->ndim; d++) *inner *= t->sizes[d];
}

/* The transcendental functions behind the shared maths (m_exp, ...) are c/maths/hd.h's. */

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
/* bfloat16 operands, float32 products and sums (cublasGemmEx, CUBLAS_COMPUTE_32F): the
 * sequence engine's compute = 'bfloat16' (rnn.cu). */
cublasStatus_t gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
                    const fused_bfloat16 *a, int lda, const fused_bfloat16 *b, int ldb,
                    float beta, float *c, int ldc);

/* `batches` GEMMs as gemm's, operand i of each s_i elements after the last one's
 * (cublas<t>gemmStridedBatched, cublasGemmStridedBatchedEx): the sequence engine's heads. */
cublasStatus_t gemm_strided(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            float alpha, const float *a, int lda, long long sa, const float *b,
                            int ldb, long long sb, float beta, float *c, int ldc, long long sc,
                            int batches);
cublasStatus_t gemm_strided(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            double alpha, const double *a, int lda, long long sa,
                            const double *b, int ldb, long long sb, double beta, double *c,
                            int ldc, long long sc, int batches);
cublasStatus_t gemm_strided(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            float alpha, const fused_bfloat16 *a, int lda, long long sa,
                            const fused_bfloat16 *b, int ldb, long long sb, float beta, float *c,
                            int ldc, long long sc, int batches);

/* The kernels of kernel_list.h: cuda_<name><T> for each dtype T that has it. */
#define FUSED_CUDA_DECLARE(name, params) template <typename T> int cuda_##name params;
FUSED_KERNELS(FUSED_CUDA_DECLARE)
#undef FUSED_CUDA_DECLARE

/* At the end of each group's .cu file: FUSED_KERNELS_<GROUP>(FUSED_CUDA_INSTANTIATE_FLOATING),
 * FUSED_CUDA_INSTANTIATE_ARITHMETIC for the ARITHMETIC kernels, or FUSED_CUDA_INSTANTIATE_ALL
 * for the ANY_DTYPE ones. */
#define FUSED_CUDA_INSTANTIATE(name, params, T) template int cuda_##name<T> params;
#define FUSED_CUDA_INSTANTIATE_FLOATING(name, params) \
  FUSED_CUDA_INSTANTIATE(name, params, float) FUSED_CUDA_INSTANTIATE(name, params, double)
#define FUSED_CUDA_INSTANTIATE_ARITHMETIC(name, params) \
  FUSED_CUDA_INSTANTIATE_FLOATING(name, params) FUSED_CUDA_INSTANTIATE(name, params, int64_t)
/* Every C type of fused.h's FUSED_DTYPES (a macro cannot walk that list for each kernel). */
static_assert(FUSED_NUM_DTYPES == 6, "a new dtype: add its C type to FUSED_CUDA_INSTANTIATE_ALL");
#define FUSED_CUDA_INSTANTIATE_ALL(name, params)                                         \
  FUSED_CUDA_INSTANTIATE_ARITHMETIC(name, params) FUSED_CUDA_INSTANTIATE(name, params, bool) \
  FUSED_CUDA_INSTANTIATE(name, params, fused_bfloat16)                                   \
  FUSED_CUDA_INSTANTIATE(name, params, fused_float16)

/* copy.cu: the device's copy (within the device, or between it and the host). */
int cuda_copy(fused_tensor *dst, const fused_tensor *src);

/* kernels.cu: the tables registered by fused_cuda_init, one per dtype. */
extern const fused_kernels cuda_kernels[FUSED_NUM_DTYPES];

#endif
