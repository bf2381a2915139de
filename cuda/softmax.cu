/* Softmax, log-softmax and logsumexp along a dim, as c/cpu/generic/softmax.h: one thread per
 * column runs c/maths/softmax.h, in the CPU's order of operations. */
#include "common.cuh"
#include "../c/maths/reduce.h"
#include "../c/maths/softmax.h"

template <typename T>
__global__ void softmax_kernel(T *y, const T *x, int64_t len, int64_t inner, int64_t n,
                               int32_t log_softmax) {
  GRID_STRIDE(j, n) {
    const int64_t at = column_of(x, j, len, inner) - x;
    softmax_column(y + at, x + at, len, inner, log_softmax);
  }
}

template <typename T>
int cuda_softmax_forward(fused_tensor *out, const fused_tensor *in, int32_t dim,
                         int32_t log_softmax) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t n = outer * inner;
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, softmax_kernel<T>)(
      (T *)out->data, (const T *)in->data, in->sizes[dim], inner, n, log_softmax);
  return cuda_done(log_softmax ? "log_softmax" : "softmax");
}

template <typename T>
__global__ void softmax_backward_kernel(T *dx, const T *g, const T *y, int64_t len,
                                        int64_t inner, int64_t n, int32_t log_softmax) {
  GRID_STRIDE(j, n) {
    const int64_t at = column_of(y, j, len, inner) - y;
    softmax_backward_column(dx + at, g + at, y + at, len, inner, log_softmax);
  }
}

template <typename T>
int cuda_softmax_backward(fused_tensor *d_in, const fused_tensor *grad_out,
                          const fused_tensor *out, int32_t dim, int32_t log_softmax) {
  int64_t outer, inner;
  outer_dim_inner(out, dim, &outer, &inner);
  const int64_t n = outer * inner;
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, softmax_backward_kernel<T>)(
      (T *)d_in->data, (const T *)grad_out->data, (const T *)out->data, out->sizes[dim], inner,
      n, log_softmax);
  return cuda_done(log_softmax ? "log_softmax_backward" : "softmax_backward");
}

template <typename T>
__global__ void logsumexp_kernel(T *y, const T *x, int64_t len, int64_t inner, int64_t n) {
  GRID_STRIDE(j, n) y[j] = column_logsumexp(column_of(x, j, len, inner), len, inner);
}

template <typename T> int cuda_logsumexp_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t n = outer * inner;
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, logsumexp_kernel<T>)(
      (T *)out->data, (const T *)in->data, in->sizes[dim], inner, n);
  return cuda_done("logsumexp");
}

FUSED_KERNELS_SOFTMAX(FUSED_CUDA_INSTANTIATE_FLOATING)
