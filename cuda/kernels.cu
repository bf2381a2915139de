/* The kernel tables that fused_cuda_init registers: every member of struct fused_kernels, by
 * name, for each dtype. */
#include "common.cuh"

template <typename T> static fused_kernels make_kernels() {
  fused_kernels k = {};
  k.fill = cuda_fill<T>;
  k.unary = cuda_unary<T>;
  k.binary = cuda_binary<T>;
  k.binary_scalar = cuda_binary_scalar<T>;
  k.addmm = cuda_addmm<T>;
  k.sum_dim = cuda_sum_dim<T>;
  k.cat = cuda_cat<T>;
  k.sgd_step = cuda_sgd_step<T>;
  k.rmsprop_step = cuda_rmsprop_step<T>;
  k.adam_step = cuda_adam_step<T>;
  k.sum_squares = cuda_sum_squares<T>;
  k.cross_entropy_forward = cuda_cross_entropy_forward<T>;
  k.cross_entropy_backward = cuda_cross_entropy_backward<T>;
  k.embedding_forward = cuda_embedding_forward<T>;
  k.embedding_backward = cuda_embedding_backward<T>;
  k.lltm_forward = cuda_lltm_forward<T>;
  k.lltm_backward = cuda_lltm_backward<T>;
  k.lltm_seq_forward = cuda_lltm_seq_forward<T>;
  k.lltm_seq_backward = cuda_lltm_seq_backward<T>;
  return k;
}

const fused_kernels cuda_float_kernels = make_kernels<float>();
const fused_kernels cuda_double_kernels = make_kernels<double>();
