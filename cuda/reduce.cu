/* Sum along a dim, on contiguous tensors seen as [outer, len, inner]. Sums
 * add in a fixed order (no atomics), so the same input gives the same bits on every run. */
#include "common.cuh"

/* inner == 1: one block per row, each thread sums a strided share, then a tree. */
template <typename T>
__global__ void sum_rows_kernel(T *out, const T *in, int64_t rows, int64_t len) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *row = in + r * len;
    T acc = 0;
    for (int64_t d = threadIdx.x; d < len; d += THREADS) acc += row[d];
    acc = block_reduce(acc, Add());
    if (threadIdx.x == 0) out[r] = acc;
  }
}

/* inner > 1: one thread per output, walking len; neighbouring threads read neighbouring
 * elements. */
template <typename T>
__global__ void sum_columns_kernel(T *out, const T *in, int64_t outer, int64_t len,
                                   int64_t inner) {
  GRID_STRIDE(i, outer * inner) {
    const T *column = in + i / inner * len * inner + i % inner;
    T acc = 0;
    for (int64_t d = 0; d < len; d++) acc += column[d * inner];
    out[i] = acc;
  }
}

template <typename T> int cuda_sum_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  if (outer == 0 || inner == 0) return 0; /* an empty out: no grid of 0 blocks */
  if (inner == 1)
    FUSED_LAUNCH((unsigned)std::min<int64_t>(outer, 65535), THREADS, 0, cuda_stream, sum_rows_kernel<T>)(
        (T *)out->data, (const T *)in->data, outer, len);
  else
    FUSED_LAUNCH(blocks_for(outer * inner), THREADS, 0, cuda_stream, sum_columns_kernel<T>)(
        (T *)out->data, (const T *)in->data, outer, len, inner);
  return cuda_done("sum_dim");
}

FUSED_KERNELS_REDUCE(FUSED_CUDA_INSTANTIATE_ARITHMETIC)
