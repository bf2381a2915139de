/* Product, max and min along a dim, as c/cpu/generic/reduce_dim.h: one thread per output
 * walks the dim in order (no atomics), so the results match the CPU's order of operations. */
#include "common.cuh"
#include "../c/maths/reduce.h"

template <typename T>
__global__ void prod_kernel(T *y, const T *x, int64_t len, int64_t inner, int64_t n) {
  GRID_STRIDE(j, n) y[j] = column_prod(column_of(x, j, len, inner), len, inner);
}

template <typename T> int cuda_prod_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t n = outer * inner;
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, prod_kernel<T>)((T *)out->data, (const T *)in->data,
                                                             in->sizes[dim], inner, n);
  return cuda_done("prod_dim");
}

template <typename T>
__global__ void extremum_kernel(T *values, int64_t *indices, const T *x, int64_t len,
                                int64_t inner, int64_t n, int32_t largest) {
  GRID_STRIDE(j, n) {
    const int64_t best_d = column_extremum(column_of(x, j, len, inner), len, inner, largest,
                                           values + j);
    if (indices) indices[j] = best_d + 1;
  }
}

template <typename T>
int cuda_extremum_dim(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
                      int32_t dim, int32_t largest) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t n = outer * inner;
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, extremum_kernel<T>)(
      (T *)values->data, indices ? (int64_t *)indices->data : NULL, (const T *)in->data,
      in->sizes[dim], inner, n, largest);
  return cuda_done(largest ? "max_dim" : "min_dim");
}

FUSED_KERNELS_REDUCE_DIM(FUSED_CUDA_INSTANTIATE_ARITHMETIC)
