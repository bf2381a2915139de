/* Kernels that show what the CUDA emulator checks (spec/cuda_emu_spec.lua), built by fused.ext.
 * Each writes int64 results into a contiguous cuda tensor and returns 0, or -1 with the CUDA
 * error as fused's error. */
#include <cublas_v2.h>
#include <fused_launch.h>

#include "kernels.h"

static int launched(const char *fn) {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : fused_error("%s: %s: %s", fn, cudaGetErrorName(e), cudaGetErrorString(e));
}

/* Each thread writes its value to shared memory, then reads its left neighbour's (thread 0 its
 * own). Without the barrier a thread that runs before its neighbour reads what an earlier
 * launch left there: right in thread order, wrong in another. */
__global__ void neighbours_kernel(int64_t *out, int barrier, int64_t tag) {
  __shared__ int64_t seen[256];
  const unsigned i = threadIdx.x;
  seen[i] = tag + 1000 * blockIdx.x + i;
  if (barrier) __syncthreads();
  out[blockIdx.x * blockDim.x + i] = seen[i > 0 ? i - 1 : 0];
}

int emu_neighbours(fused_tensor *out, int32_t blocks, int32_t barrier, int64_t tag) {
  FUSED_LAUNCH(blocks, 256, 0, (cudaStream_t)fused_cuda_stream(), neighbours_kernel)(
      FUSED_DATA(out, int64_t), barrier, tag);
  return launched("emu_neighbours");
}

/* Each warp sums its lanes' ids with __shfl_down_sync and counts its odd lanes with
 * __ballot_sync: out[2w] = 496 + 32·32·w, out[2w + 1] = 16. */
__global__ void warp_sum_kernel(int64_t *out) {
  int64_t v = threadIdx.x;
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  const unsigned odd = __ballot_sync(0xffffffffu, threadIdx.x % 2);
  if (threadIdx.x % 32 == 0) {
    out[threadIdx.x / 16] = v;
    out[threadIdx.x / 16 + 1] = __builtin_popcount(odd);
  }
}

int emu_warp_sum(fused_tensor *out) {
  FUSED_LAUNCH(1, 128, 0, (cudaStream_t)fused_cuda_stream(), warp_sum_kernel)(FUSED_DATA(out, int64_t));
  return launched("emu_warp_sum");
}

__global__ void empty_kernel(void) {}

int emu_launch_threads(int32_t threads, int32_t shared_bytes) {
  FUSED_LAUNCH(1, threads, shared_bytes, (cudaStream_t)fused_cuda_stream(), empty_kernel)();
  return launched("emu_launch_threads");
}

/* out[i] = in[i] for i < numel(in) + extra: past in's end when extra > 0. */
__global__ void read_past_kernel(int64_t *out, const int64_t *in, int64_t n) {
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = in[i];
}

int emu_read_past(fused_tensor *out, const fused_tensor *in, int64_t extra) {
  FUSED_LAUNCH(1, 32, 0, (cudaStream_t)fused_cuda_stream(), read_past_kernel)(
      FUSED_DATA(out, int64_t), FUSED_DATA(in, const int64_t), fused_tensor_numel(in) + extra);
  return launched("emu_read_past");
}

/* c[i] = alpha·a[i]·b[i] + beta·c[i] for row-major float64 batches (batch×m×k, batch×k×n,
 * batch×m×n) on fused's cuBLAS handle, as cuBLAS sees them: column-major, so cᵀ = bᵀ·aᵀ.
 * lda_less shrinks a's leading dimension below what its shape needs. */
int emu_gemm_batched(fused_tensor *c, const fused_tensor *a, const fused_tensor *b, double alpha,
                     double beta, int32_t lda_less) {
  const int batch = (int)a->sizes[0], m = (int)a->sizes[1], k = (int)a->sizes[2];
  const int n = (int)b->sizes[2];
  const cublasStatus_t status = cublasDgemmStridedBatched(
      (cublasHandle_t)fused_cuda_blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
      FUSED_DATA(b, const double), n, (long long)k * n, FUSED_DATA(a, const double), k - lda_less,
      (long long)m * k, &beta, FUSED_DATA(c, double), n, (long long)m * n, batch);
  return status == CUBLAS_STATUS_SUCCESS
             ? 0
             : fused_error("emu_gemm_batched: %s", cublasGetStatusName(status));
}

/* c (m×n, float32) = a (m×k) · b (k×n), bfloat16 operands, row-major (the operands swapped for
 * column-major cuBLAS), on cublasGemmEx; c_double asks for a float64 C, which it refuses. */
int emu_gemm_ex(fused_tensor *c, const fused_tensor *a, const fused_tensor *b, int32_t c_double) {
  const int m = (int)a->sizes[0], k = (int)a->sizes[1], n = (int)b->sizes[1];
  const float alpha = 1, beta = 0;
  const cublasStatus_t status = cublasGemmEx(
      (cublasHandle_t)fused_cuda_blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
      FUSED_DATA(b, const void), CUDA_R_16BF, n, FUSED_DATA(a, const void), CUDA_R_16BF, k, &beta,
      FUSED_DATA(c, void), c_double ? CUDA_R_64F : CUDA_R_32F, n, CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT);
  return status == CUBLAS_STATUS_SUCCESS
             ? 0
             : fused_error("emu_gemm_ex: %s", cublasGetStatusName(status));
}
