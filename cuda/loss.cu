/* Cross-entropy (log-softmax and NLL fused), as c/cpu/generic/loss.h: each row's max is
 * subtracted before exp. The targets are checked on the host first (the CPU's message names
 * the first bad one), which waits for the device. One block per row; its sums run in a fixed
 * order, so the bits are the same on every run. */
#include "common.cuh"
#include "../c/core/check.h"

/* 0, or the CPU's error for the first target that is not a class index 1..classes. */
static int check_targets(const char *fn, const fused_tensor *targets, int64_t classes) {
  std::vector<int64_t> host;
  FUSED_TRY(cuda_read(fn, targets, &host));
  return check_indices(fn, "targets", "class indices", host.data(), (int64_t)host.size(),
                       classes);
}

/* A row's max and log(sum(exp(row - max))) over the block; every thread receives both. They
 * stay apart so that row[c] - logsumexp is (row[c] - max) - log_sum, exact even where max
 * dwarfs log_sum (logits of 1e30 in float32), as on the CPU. */
template <typename T>
__device__ void block_max_log_sum(const T *row, int64_t classes, T *max_out, T *log_sum_out) {
  T max = row[0];
  for (int64_t c = threadIdx.x; c < classes; c += THREADS) max = Max()(max, row[c]);
  max = block_reduce(max, Max());
  T sum = 0;
  for (int64_t c = threadIdx.x; c < classes; c += THREADS) sum += m_exp(row[c] - max);
  *max_out = max;
  *log_sum_out = m_log(block_reduce(sum, Add()));
}

template <typename T>
__global__ void cross_entropy_rows_kernel(double *row_loss, const T *x, const int64_t *targets,
                                          int64_t rows, int64_t classes) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *row = x + r * classes;
    T max, log_sum;
    block_max_log_sum(row, classes, &max, &log_sum);
    if (threadIdx.x == 0) row_loss[r] = (double)((max - row[targets[r] - 1]) + log_sum);
  }
}

/* loss = the mean of row_loss, summed in double by one block. */
template <typename T>
__global__ void mean_kernel(T *loss, const double *row_loss, int64_t rows) {
  double acc = 0;
  for (int64_t r = threadIdx.x; r < rows; r += THREADS) acc += row_loss[r];
  acc = block_reduce(acc, Add());
  if (threadIdx.x == 0) *loss = (T)(acc / (double)rows);
}

/* At least one block: an empty batch launches one that finds no row (a grid of 0 is an error). */
static unsigned row_blocks(int64_t rows) { return (unsigned)std::clamp<int64_t>(rows, 1, 65535); }

template <typename T>
int cuda_cross_entropy_forward(fused_tensor *loss, const fused_tensor *logits,
                               const fused_tensor *targets) {
  const char *fn = "cross_entropy_forward";
  const int64_t rows = logits->sizes[0], classes = logits->sizes[1];
  FUSED_TRY(check_targets(fn, targets, classes));
  Scratch row_loss(fn, (size_t)rows * sizeof(double));
  if (!row_loss.ptr) return -1;
  FUSED_LAUNCH(row_blocks(rows), THREADS, 0, cuda_stream, cross_entropy_rows_kernel<T>)(
      row_loss.as<double>(), (const T *)logits->data, (const int64_t *)targets->data, rows, classes);
  FUSED_LAUNCH(1, THREADS, 0, cuda_stream, mean_kernel<T>)((T *)loss->data, row_loss.as<double>(), rows);
  return cuda_done(fn);
}

/* d_logits = scale * softmax(row), minus scale at the target; scale = grad_loss / rows. */
template <typename T>
__global__ void cross_entropy_backward_kernel(T *dx, const T *x, const int64_t *targets, T scale,
                                              int64_t rows, int64_t classes) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T *row = x + r * classes;
    T max, log_sum;
    block_max_log_sum(row, classes, &max, &log_sum);
    const int64_t target = (int64_t)targets[r] - 1;
    for (int64_t c = threadIdx.x; c < classes; c += THREADS) {
      const T d = scale * m_exp((row[c] - max) - log_sum);
      dx[r * classes + c] = c == target ? d - scale : d;
    }
  }
}

template <typename T>
int cuda_cross_entropy_backward(fused_tensor *d_logits, const fused_tensor *logits,
                                const fused_tensor *targets, double grad_loss) {
  const char *fn = "cross_entropy_backward";
  const int64_t rows = logits->sizes[0], classes = logits->sizes[1];
  FUSED_TRY(check_targets(fn, targets, classes));
  FUSED_LAUNCH(row_blocks(rows), THREADS, 0, cuda_stream, cross_entropy_backward_kernel<T>)(
      (T *)d_logits->data, (const T *)logits->data, (const int64_t *)targets->data,
      (T)(grad_loss / (double)rows), rows, classes);
  return cuda_done(fn);
}

FUSED_KERNELS_LOSS(FUSED_CUDA_INSTANTIATE_FLOATING)
