/* Deterministic column sums over batch rows (fixed order, no atomics), for the bias
 * gradients of rnn.cu. */
#ifndef FUSED_CUDA_COLUMN_SUMS_CUH
#define FUSED_CUDA_COLUMN_SUMS_CUH

#include "common.cuh"

/* Column sums over batch rows run in (COLS, LANES) blocks, each block summing a chunk of rows
 * lane by lane, then its lanes in order. */
constexpr int COLS = 32, LANES = 8;

struct RowChunks {
  int64_t per_block, count;
};
/* At least 64 rows a block, and few enough blocks for gridDim.y. */
inline RowChunks row_chunks(int64_t rows) {
  int64_t per_block = std::max<int64_t>(64, (rows + 65534) / 65535);
  per_block = (per_block + LANES - 1) / LANES * LANES;
  return {per_block, (rows + per_block - 1) / per_block};
}

/* v summed over the block's lanes in lane order; meaningful in lane 0. */
template <typename T>
__device__ T sum_lanes(T v) {
  __shared__ T lane[LANES][COLS];
  lane[threadIdx.y][threadIdx.x] = v;
  __syncthreads();
  T acc = 0;
  if (threadIdx.y == 0)
    for (int l = 0; l < LANES; l++) acc += lane[l][threadIdx.x];
  __syncthreads();
  return acc;
}

/* From lane 0, for a thread with a column (valid): with one chunk of rows the sum goes to
 * out (added when accumulate), else to this chunk's row of partial, which finish_sums_kernel
 * adds up in chunk order. */
template <typename T>
__device__ void store_sum(T *out, T *partial, int64_t cols, int64_t col, bool valid, T sum,
                          bool accumulate) {
  if (threadIdx.y != 0 || !valid) return;
  if (gridDim.y == 1) out[col] = accumulate ? out[col] + sum : sum;
  else partial[blockIdx.y * cols + col] = sum;
}

template <typename T>
__global__ void finish_sums_kernel(T *out, const T *partial, int64_t chunks, int64_t cols,
                                   bool accumulate) {
  GRID_STRIDE(col, cols) {
    T acc = accumulate ? out[col] : T(0);
    for (int64_t k = 0; k < chunks; k++) acc += partial[k * cols + col];
    out[col] = acc;
  }
}

template <typename T>
__global__ void column_sums_kernel(T *out, T *partial, const T *in, int64_t rows, int64_t cols,
                                   int64_t ld, int64_t per_block, bool accumulate) {
  const int64_t col = blockIdx.x * (int64_t)COLS + threadIdx.x;
  const int64_t chunk_end = (blockIdx.y + 1) * per_block, end = chunk_end < rows ? chunk_end : rows;
  T acc = 0;
  if (col < cols)
    for (int64_t r = blockIdx.y * per_block + threadIdx.y; r < end; r += LANES)
      acc += in[r * ld + col];
  store_sum(out, partial, cols, col, col < cols, sum_lanes(acc), accumulate);
}

/* out (cols) = (out +) the column sums of in (rows×cols, leading dimension ld). */
template <typename T>
int column_sums(const char *fn, T *out, const T *in, int64_t rows, int64_t cols,
                       int64_t ld, bool accumulate) {
  if (cols == 0) return 0; /* no grid of 0 blocks */
  if (rows == 0) /* a sum of no rows is 0 */
    return accumulate ? 0 : cuda_check(fn, cudaMemsetAsync(out, 0, (size_t)cols * sizeof(T), cuda_stream));
  const RowChunks chunks = row_chunks(rows);
  Scratch partial(fn, (size_t)(chunks.count > 1 ? chunks.count * cols : 1) * sizeof(T));
  if (!partial.ptr) return -1;
  const dim3 grid((unsigned)((cols + COLS - 1) / COLS), (unsigned)chunks.count);
  FUSED_LAUNCH(grid, dim3(COLS, LANES), 0, cuda_stream, column_sums_kernel<T>)(
      out, partial.as<T>(), in, rows, cols, ld, chunks.per_block, accumulate);
  if (chunks.count > 1)
    FUSED_LAUNCH(blocks_for(cols), THREADS, 0, cuda_stream, finish_sums_kernel<T>)(
        out, partial.as<T>(), chunks.count, cols, accumulate);
  return cuda_check(fn, cudaGetLastError());
}

#endif
