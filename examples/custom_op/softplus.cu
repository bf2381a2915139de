/* Softplus on CUDA, on fused's stream (fused_cuda_stream in fused_ext.h). Compiled, not run:
 * no GPU has answered where it was written. */
#include <cuda_runtime.h>

#include <fused_launch.h>

#include "softplus.h"

template <typename T>
__global__ void forward_kernel(T *y, const T *x, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = (x[i] > 0 ? x[i] : T(0)) + log1p(exp(-fabs(x[i])));
}

template <typename T>
__global__ void backward_kernel(T *d, const T *g, const T *x, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    d[i] = g[i] / (1 + exp(-x[i]));
}

static int launched(const char *fn) {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : fused_error("%s: %s", fn, cudaGetErrorString(e));
}

static unsigned blocks(int64_t n) { return (unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096); }

extern "C" int softplus_forward_cuda(fused_tensor *out, const fused_tensor *x) {
  const char *fn = "softplus_forward";
  FUSED_TRY(fused_check_device(fn, "x", x, FUSED_CUDA));
  const int64_t n = fused_tensor_numel(x);
  if (n == 0) return 0;
  cudaStream_t stream = (cudaStream_t)fused_cuda_stream();
  FUSED_DISPATCH_FLOATING(fn, "x", x, {
    FUSED_LAUNCH(blocks(n), 256, 0, stream, forward_kernel<scalar_t>)(FUSED_DATA(out, scalar_t),
                                                            FUSED_DATA(x, scalar_t), n);
  });
  return launched(fn);
}

extern "C" int softplus_backward_cuda(fused_tensor *d_x, const fused_tensor *d_out,
                                      const fused_tensor *x) {
  const char *fn = "softplus_backward";
  FUSED_TRY(fused_check_device(fn, "x", x, FUSED_CUDA));
  const int64_t n = fused_tensor_numel(x);
  if (n == 0) return 0;
  cudaStream_t stream = (cudaStream_t)fused_cuda_stream();
  FUSED_DISPATCH_FLOATING(fn, "x", x, {
    FUSED_LAUNCH(blocks(n), 256, 0, stream, backward_kernel<scalar_t>)(
        FUSED_DATA(d_x, scalar_t), FUSED_DATA(d_out, scalar_t), FUSED_DATA(x, scalar_t), n);
  });
  return launched(fn);
}
