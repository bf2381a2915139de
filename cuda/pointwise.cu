/* Elementwise ops into a contiguous out: unary maps (and their derivatives), binary ops with a
 * tensor (any strides: a broadcast operand has stride 0) or a scalar, with the shared maths
 * (c/maths/pointwise.h). The op is a kernel argument: every thread takes the same branch. */
#include "common.cuh"
#include "../c/maths/pointwise.h"

/* int64 has neg, abs, sign and the rounding ops only (c/maths/arithmetic.h; the API refuses the
 * rest). */
template <typename T>
__global__ void unary_kernel(fused_unary_op op, T *y, const T *x, T alpha, int64_t n) {
  if constexpr (std::is_integral<T>::value) {
    GRID_STRIDE(i, n) y[i] = apply_unary_exact(op, x[i]);
  } else {
    GRID_STRIDE(i, n) y[i] = apply_unary(op, x[i], alpha);
  }
}

template <typename T>
__global__ void binary_kernel(fused_binary_op op, T *y, const T *a, const T *b, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_binary(op, a[i], b[i]);
}

template <typename T>
__global__ void binary_strided_kernel(fused_binary_op op, T *y, const T *a, Layout la, const T *b,
                                      Layout lb, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_binary(op, a[offset_of(la, i)], b[offset_of(lb, i)]);
}

template <typename T>
__global__ void binary_scalar_kernel(fused_binary_op op, T *y, const T *a, T s, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_binary(op, a[i], s);
}

template <typename T>
int cuda_unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha) {
  const int64_t n = fused_tensor_numel(out);
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, unary_kernel<T>)(op, (T *)out->data,
                                                              (const T *)in->data, (T)alpha, n);
  return cuda_done("unary");
}

template <typename T>
int cuda_binary(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                const fused_tensor *b) {
  const int64_t n = fused_tensor_numel(out);
  if (fused_tensor_is_contiguous(a) && fused_tensor_is_contiguous(b))
    FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, binary_kernel<T>)(
        op, (T *)out->data, (const T *)a->data, (const T *)b->data, n);
  else
    FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, binary_strided_kernel<T>)(
        op, (T *)out->data, (const T *)a->data, layout_of(a), (const T *)b->data, layout_of(b), n);
  return cuda_done("binary");
}

template <typename T>
int cuda_binary_scalar(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                       double scalar) {
  const int64_t n = fused_tensor_numel(out);
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, binary_scalar_kernel<T>)(
      op, (T *)out->data, (const T *)a->data, (T)scalar, n);
  return cuda_done("binary_scalar");
}

FUSED_KERNELS_POINTWISE(FUSED_CUDA_INSTANTIATE_ARITHMETIC)
