/* The kernels every dtype has, besides convert (copy.cu): fill (any strides) and comparisons
 * into a bool tensor (c/maths/compare.h), of operands with any strides (a broadcast one has
 * stride 0) or a scalar. */
#include "common.cuh"
#include "../c/maths/compare.h"
#include "../c/maths/convert.h"

template <typename T>
__global__ void fill_kernel(T *t, Layout layout, T value, int64_t n) {
  GRID_STRIDE(i, n) t[offset_of(layout, i)] = value;
}

template <typename T> int cuda_fill(fused_tensor *t, double value) {
  const int64_t n = fused_tensor_numel(t);
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, fill_kernel<T>)((T *)t->data, layout_of(t),
                                                             fused_convert<T>(value), n);
  return cuda_done("fill");
}

template <typename T>
__global__ void compare_kernel(fused_compare_op op, bool *y, const T *a, const T *b, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_compare(op, fused_value(a[i]), fused_value(b[i]));
}

template <typename T>
__global__ void compare_strided_kernel(fused_compare_op op, bool *y, const T *a, Layout la,
                                       const T *b, Layout lb, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_compare(op, fused_value(a[offset_of(la, i)]),
                                          fused_value(b[offset_of(lb, i)]));
}

template <typename T>
__global__ void compare_scalar_kernel(fused_compare_op op, bool *y, const T *a, T s, int64_t n) {
  GRID_STRIDE(i, n) y[i] = apply_compare(op, fused_value(a[i]), fused_value(s));
}

template <typename T>
int cuda_compare(fused_compare_op op, fused_tensor *out, const fused_tensor *a,
                 const fused_tensor *b) {
  const int64_t n = fused_tensor_numel(out);
  if (fused_tensor_is_contiguous(a) && fused_tensor_is_contiguous(b))
    FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, compare_kernel<T>)(
        op, (bool *)out->data, (const T *)a->data, (const T *)b->data, n);
  else
    FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, compare_strided_kernel<T>)(
        op, (bool *)out->data, (const T *)a->data, layout_of(a), (const T *)b->data,
        layout_of(b), n);
  return cuda_done("compare");
}

template <typename T>
int cuda_compare_scalar(fused_compare_op op, fused_tensor *out, const fused_tensor *a,
                        double scalar) {
  const int64_t n = fused_tensor_numel(out);
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, compare_scalar_kernel<T>)(
      op, (bool *)out->data, (const T *)a->data, fused_convert<T>(scalar), n);
  return cuda_done("compare_scalar");
}

FUSED_KERNELS_COMPARE(FUSED_CUDA_INSTANTIATE_ALL)
