/* Embedding lookup and its gradient, as c/cpu/generic/embedding.h. The indices are read and
 * checked on the host first (the CPU's message names the first bad one), which waits for the
 * device; the backward groups positions by row there, so that each row's gradients add up in
 * one thread, in position order, with no atomics: the same bits on every run. */
#include <algorithm>
#include <numeric>

#include "common.cuh"
#include "../c/core/check.h"

/* The 0-based rows of the indices, or the CPU's error for the first bad one. */
static int read_rows(const char *fn, const fused_tensor *indices, int64_t rows,
                     std::vector<int64_t> *out) {
  FUSED_TRY(cuda_read(fn, indices, out));
  FUSED_TRY(check_indices(fn, "indices", "integers", out->data(), (int64_t)out->size(), rows));
  for (int64_t &row : *out) row -= 1;
  return 0;
}

template <typename T>
__global__ void embedding_forward_kernel(T *out, const T *weight, const int64_t *indices,
                                         int64_t dim, int64_t n) {
  GRID_STRIDE(i, n) out[i] = weight[(indices[i / dim] - 1) * dim + i % dim];
}

template <typename T>
int cuda_embedding_forward(fused_tensor *out, const fused_tensor *weight,
                           const fused_tensor *indices) {
  const char *fn = "embedding_forward";
  std::vector<int64_t> rows;
  FUSED_TRY(read_rows(fn, indices, weight->sizes[0], &rows));
  const int64_t dim = weight->sizes[1], n = (int64_t)rows.size() * dim;
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, embedding_forward_kernel<T>)(
      (T *)out->data, (const T *)weight->data, (const int64_t *)indices->data, dim, n);
  return cuda_done(fn);
}

/* Segment s holds the positions order[start[s] .. start[s+1]) that pick row row_of[s]. */
template <typename T>
__global__ void embedding_backward_kernel(T *grad_weight, const T *grad_out,
                                          const int64_t *order, const int64_t *start,
                                          const int64_t *row_of, int64_t dim, int64_t n) {
  GRID_STRIDE(i, n) {
    const int64_t s = i / dim, c = i % dim;
    T acc = grad_weight[row_of[s] * dim + c];
    for (int64_t p = start[s]; p < start[s + 1]; p++) acc += grad_out[order[p] * dim + c];
    grad_weight[row_of[s] * dim + c] = acc;
  }
}

template <typename T>
int cuda_embedding_backward(fused_tensor *grad_weight, const fused_tensor *grad_out,
                            const fused_tensor *indices) {
  const char *fn = "embedding_backward";
  std::vector<int64_t> rows;
  FUSED_TRY(read_rows(fn, indices, grad_weight->sizes[0], &rows));
  /* Positions sorted by row, stable: the CPU's order of adds within a row. */
  const size_t n = rows.size();
  std::vector<int64_t> plan(n); /* order, then start (segments + 1), then row_of */
  std::iota(plan.begin(), plan.end(), 0);
  std::stable_sort(plan.begin(), plan.end(),
                   [&](int64_t a, int64_t b) { return rows[a] < rows[b]; });
  std::vector<int64_t> start, row_of;
  for (size_t p = 0; p < n; p++)
    if (p == 0 || rows[plan[p]] != rows[plan[p - 1]]) {
      start.push_back((int64_t)p);
      row_of.push_back(rows[plan[p]]);
    }
  const size_t segments = row_of.size();
  start.push_back((int64_t)n);
  plan.insert(plan.end(), start.begin(), start.end());
  plan.insert(plan.end(), row_of.begin(), row_of.end());
  Scratch device_plan(fn, plan.size() * sizeof(int64_t));
  if (!device_plan.ptr) return -1;
  /* From pageable memory the copy has taken the host data when it returns. */
  FUSED_TRY(cuda_check(fn, cudaMemcpyAsync(device_plan.ptr, plan.data(),
                                           plan.size() * sizeof(int64_t),
                                           cudaMemcpyHostToDevice, cuda_stream)));
  const int64_t *order = device_plan.as<int64_t>();
  const int64_t dim = grad_weight->sizes[1], work = (int64_t)segments * dim;
  FUSED_LAUNCH(blocks_for(work), THREADS, 0, cuda_stream, embedding_backward_kernel<T>)(
      (T *)grad_weight->data, (const T *)grad_out->data, order, order + n, order + n + segments + 1,
      dim, work);
  return cuda_done(fn);
}

FUSED_KERNELS_EMBEDDING(FUSED_CUDA_INSTANTIATE_FLOATING)
