/* Optimizer updates, one pass over each parameter, with the shared per-element updates
 * (c/maths/optim.h); and the sum of squares behind clip_grad_norm. */
#include "common.cuh"
#include "../c/maths/optim.h"

/* buf NULL: no momentum; init: the first step sets buf = g. */
template <typename T>
__global__ void sgd_kernel(T *p, T *buf, const T *g, T lr, T momentum, T undamped, T wd,
                           bool nesterov, bool init, int64_t n) {
  GRID_STRIDE(i, n)
    sgd_element(&p[i], buf ? &buf[i] : (T *)NULL, g[i], lr, momentum, undamped, wd, nesterov,
                init);
}

template <typename T>
int cuda_sgd_step(fused_tensor *param, fused_tensor *momentum_buffer, const fused_tensor *grad,
                  double lr, double momentum, double dampening, double weight_decay,
                  int32_t nesterov, int32_t init_buffer) {
  const int64_t n = fused_tensor_numel(param);
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, sgd_kernel<T>)(
      (T *)param->data, momentum_buffer ? (T *)momentum_buffer->data : NULL,
      (const T *)grad->data, (T)lr, (T)momentum, (T)(1 - dampening), (T)weight_decay,
      nesterov != 0, init_buffer != 0, n);
  return cuda_done("sgd_step");
}

template <typename T>
__global__ void rmsprop_kernel(T *p, T *sq, T *buf, const T *g, T lr, T alpha,
                               T one_minus_alpha, T eps, T momentum, T wd, int64_t n) {
  GRID_STRIDE(i, n)
    rmsprop_element(&p[i], &sq[i], buf ? &buf[i] : (T *)NULL, g[i], lr, alpha, one_minus_alpha,
                    eps, momentum, wd);
}

template <typename T>
int cuda_rmsprop_step(fused_tensor *param, fused_tensor *square_avg,
                      fused_tensor *momentum_buffer, const fused_tensor *grad, double lr,
                      double alpha, double eps, double momentum, double weight_decay) {
  const int64_t n = fused_tensor_numel(param);
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, rmsprop_kernel<T>)(
      (T *)param->data, (T *)square_avg->data,
      momentum_buffer ? (T *)momentum_buffer->data : NULL, (const T *)grad->data, (T)lr,
      (T)alpha, (T)(1 - alpha), (T)eps, (T)momentum, (T)weight_decay, n);
  return cuda_done("rmsprop_step");
}

template <typename T>
__global__ void adam_kernel(T *p, T *m, T *v, const T *g, adam_coefficients<T> k, int64_t n) {
  GRID_STRIDE(i, n) adam_element(&p[i], &m[i], &v[i], g[i], k);
}

template <typename T>
int cuda_adam_step(fused_tensor *param, fused_tensor *exp_avg, fused_tensor *exp_avg_sq,
                   const fused_tensor *grad, double lr, double beta1, double beta2, double eps,
                   double weight_decay, int32_t decoupled, int64_t step) {
  const int64_t n = fused_tensor_numel(param);
  FUSED_LAUNCH(blocks_for(n), THREADS, 0, cuda_stream, adam_kernel<T>)(
      (T *)param->data, (T *)exp_avg->data, (T *)exp_avg_sq->data, (const T *)grad->data,
      adam_coefficients_of<T>(lr, beta1, beta2, eps, weight_decay, decoupled != 0, step), n);
  return cuda_done("adam_step");
}

/* Two passes in double, each in a fixed order: blocks sum grid-strided shares into partial,
 * then one block sums partial. The grid depends on n only, so the bits do too. */
template <typename T>
__global__ void sum_squares_kernel(double *partial, const T *x, int64_t n) {
  double acc = 0;
  GRID_STRIDE(i, n) acc += (double)x[i] * (double)x[i];
  acc = block_reduce(acc, Add());
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

__global__ void sum_partials_kernel(double *out, const double *partial, int64_t n) {
  double acc = 0;
  for (int64_t i = threadIdx.x; i < n; i += THREADS) acc += partial[i];
  acc = block_reduce(acc, Add());
  if (threadIdx.x == 0) *out = acc;
}

template <typename T> int cuda_sum_squares(double *out, const fused_tensor *t) {
  const char *fn = "sum_squares";
  const int64_t n = fused_tensor_numel(t);
  const unsigned blocks = std::min(blocks_for(n), 1024u);
  Scratch partial(fn, (blocks + 1) * sizeof(double));
  if (!partial.ptr) return -1;
  double *sums = partial.as<double>();
  FUSED_LAUNCH(blocks, THREADS, 0, cuda_stream, sum_squares_kernel<T>)(sums, (const T *)t->data, n);
  FUSED_LAUNCH(1, THREADS, 0, cuda_stream, sum_partials_kernel)(sums + blocks, sums, blocks);
  FUSED_TRY(cuda_check(fn, cudaGetLastError()));
  FUSED_TRY(cuda_check(fn, cudaMemcpyAsync(out, sums + blocks, sizeof *out,
                                           cudaMemcpyDeviceToHost, cuda_stream)));
  return cuda_check(fn, cudaStreamSynchronize(cuda_stream));
}

FUSED_KERNELS_OPTIM(FUSED_CUDA_INSTANTIATE_FLOATING)
