/* Every kernel, one line each: X(name, parameter list). The list is expanded into the members
 * of struct fused_kernels (backend.h), the CPU tables (c/cpu/generic/kernels.h), and the
 * CUDA declarations, explicit instantiations and tables (cuda/common.cuh, cuda/kernels.cu).
 * A kernel is `name` on the CPU (c/cpu/generic/<group>.h) and `cuda_name` on CUDA
 * (cuda/<group>.cu); the groups are those files (COPY: convert.h on the CPU, copy.cu on CUDA).
 * Every dtype has the ANY_DTYPE kernels: convert is the dtype's copy from any dtype within a
 * device (the devices' copy calls it). The ARITHMETIC ones are every dtype's but bool's (the
 * Lua op layer computes bool as int64) and the 16-bit floats' (it computes them in float32):
 * int64 runs their maths exactly, and the API refuses the ops whose maths is not exact (unary
 * ops other than neg, abs, sign and rounding, division). The CPU_ONLY ones are the CPU's for
 * the dtypes that compute, the CPU_ONLY_ANY_DTYPE ones the CPU's for every dtype. The others
 * are float32 and float64 only. A table leaves a kernel it lacks NULL. */
#ifndef FUSED_KERNEL_LIST_H
#define FUSED_KERNEL_LIST_H

#define FUSED_KERNELS_COPY(X) X(convert, (fused_tensor *dst, const fused_tensor *src))

#define FUSED_KERNELS_COMPARE(X)                                                            \
  X(fill, (fused_tensor *t, double value))                                                  \
  X(compare, (fused_compare_op op, fused_tensor *out, const fused_tensor *a,                \
              const fused_tensor *b))                                                       \
  X(compare_scalar, (fused_compare_op op, fused_tensor *out, const fused_tensor *a,         \
                     double scalar))

/* Selection by a bool condition or by int64 indices counted from 1, and concatenation
 * (select.h, select.cu). */
#define FUSED_KERNELS_SELECT(X)                                                             \
  X(where, (fused_tensor *out, const fused_tensor *cond, const fused_tensor *a,             \
            const fused_tensor *b))                                                         \
  X(index_select, (fused_tensor *out, const fused_tensor *in, int32_t dim,                  \
                   const fused_tensor *index))                                              \
  X(gather, (fused_tensor *out, const fused_tensor *in, int32_t dim,                        \
             const fused_tensor *index))                                                    \
  X(cat, (fused_tensor *out, const fused_tensor *const *inputs, int32_t n, int32_t dim))

/* Indexing by a mask or by indices that write (index.h), every dtype, the CPU's only (in
 * FUSED_KERNELS_CPU_ONLY_ANY_DTYPE below). */
#define FUSED_KERNELS_INDEX(X)                                                              \
  X(masked_select, (fused_tensor *out, const fused_tensor *in, const fused_tensor *mask))   \
  X(masked_scatter, (fused_tensor *t, const fused_tensor *mask, const fused_tensor *src))   \
  X(index_put, (fused_tensor *t, const fused_tensor *const *indices, int32_t n_indices,     \
                const fused_tensor *values, int32_t accumulate))                            \
  X(index_add, (fused_tensor *t, int32_t dim, const fused_tensor *index,                    \
                const fused_tensor *source))

#define FUSED_KERNELS_ANY_DTYPE(X) FUSED_KERNELS_COPY(X) FUSED_KERNELS_COMPARE(X) \
  FUSED_KERNELS_SELECT(X)

#define FUSED_KERNELS_POINTWISE(X)                                                          \
  X(unary, (fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha))   \
  X(binary, (fused_binary_op op, fused_tensor *out, const fused_tensor *a,                  \
             const fused_tensor *b))                                                        \
  X(binary_scalar, (fused_binary_op op, fused_tensor *out, const fused_tensor *a,           \
                    double scalar))

#define FUSED_KERNELS_ADDMM(X)                                                              \
  X(addmm, (fused_tensor *out, const fused_tensor *bias, const fused_tensor *a,             \
            const fused_tensor *b, double beta, double alpha))

#define FUSED_KERNELS_REDUCE(X)                                                             \
  X(sum_dim, (fused_tensor *out, const fused_tensor *in, int32_t dim))

/* Reductions along a dim besides the sum (reduce_dim.h, reduce_dim.cu); indices may be NULL. */
#define FUSED_KERNELS_REDUCE_DIM(X)                                                         \
  X(prod_dim, (fused_tensor *out, const fused_tensor *in, int32_t dim))                     \
  X(extremum_dim, (fused_tensor *values, fused_tensor *indices, const fused_tensor *in,     \
                   int32_t dim, int32_t largest))

/* Softmax and log-softmax along a dim (log_softmax: 0 or 1), the backward of either from its
 * output, and logsumexp along a dim into a tensor with that dim of size 1 (softmax.h,
 * softmax.cu). */
#define FUSED_KERNELS_SOFTMAX(X)                                                            \
  X(softmax_forward, (fused_tensor *out, const fused_tensor *in, int32_t dim,               \
                      int32_t log_softmax))                                                 \
  X(softmax_backward, (fused_tensor *d_in, const fused_tensor *grad_out,                    \
                       const fused_tensor *out, int32_t dim, int32_t log_softmax))          \
  X(logsumexp_dim, (fused_tensor *out, const fused_tensor *in, int32_t dim))
/* Scans and sorts along a dim, the CPU's only so far: CUDA's tables leave them NULL, and the API
 * says so (fused_missing_kernel). cumulative_dim: product 0 sums, 1 multiplies; reverse 1 runs
 * from the last element (cumulative.h). sort_dim: stable, indices counted from 1 (sort.h). */
#define FUSED_KERNELS_CUMULATIVE(X)                                                         \
  X(cumulative_dim, (fused_tensor *out, const fused_tensor *in, int32_t dim, int32_t product, \
                      int32_t reverse))
#define FUSED_KERNELS_SORT(X)                                                               \
  X(sort_dim, (fused_tensor *values, fused_tensor *indices, const fused_tensor *in,         \
               int32_t dim, int32_t descending))
#define FUSED_KERNELS_CPU_ONLY(X) FUSED_KERNELS_CUMULATIVE(X) FUSED_KERNELS_SORT(X)
/* The CPU's only so far, for every dtype: the indexing above, and nonzero, which counts in's
 * nonzero elements into *count and, when out is not NULL, writes their 1-based positions as
 * out's rows (nonzero.h). */
#define FUSED_KERNELS_CPU_ONLY_ANY_DTYPE(X)                                                 \
  FUSED_KERNELS_INDEX(X)                                                                    \
  X(nonzero, (fused_tensor *out, int64_t *count, const fused_tensor *in))

#define FUSED_KERNELS_OPTIM(X)                                                              \
  X(sgd_step, (fused_tensor *param, fused_tensor *momentum_buffer, const fused_tensor *grad, \
               double lr, double momentum, double dampening, double weight_decay,          \
               int32_t nesterov, int32_t init_buffer))                                      \
  X(rmsprop_step, (fused_tensor *param, fused_tensor *square_avg,                           \
                   fused_tensor *momentum_buffer, const fused_tensor *grad, double lr,      \
                   double alpha, double eps, double momentum, double weight_decay))         \
  X(adam_step, (fused_tensor *param, fused_tensor *exp_avg, fused_tensor *exp_avg_sq,       \
                const fused_tensor *grad, double lr, double beta1, double beta2, double eps, \
                double weight_decay, int32_t decoupled, int64_t step))                      \
  X(sum_squares, (double *out, const fused_tensor *t))

#define FUSED_KERNELS_LOSS(X)                                                               \
  X(cross_entropy_forward, (fused_tensor *loss, const fused_tensor *logits,                 \
                            const fused_tensor *targets))                                   \
  X(cross_entropy_backward, (fused_tensor *d_logits, const fused_tensor *logits,            \
                             const fused_tensor *targets, double grad_loss))

#define FUSED_KERNELS_EMBEDDING(X)                                                          \
  X(embedding_forward, (fused_tensor *out, const fused_tensor *weight,                      \
                        const fused_tensor *indices))                                       \
  X(embedding_backward, (fused_tensor *grad_weight, const fused_tensor *grad_out,           \
                         const fused_tensor *indices))

/* The sequence engine (fused_rnn_forward/backward; the LLTM's cell and sequence run on it). */
#define FUSED_KERNELS_RNN(X)                                                                \
  X(rnn_forward, (int32_t cell, fused_tensor *hs, fused_tensor *h_n, fused_tensor *c_n,      \
                  fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,      \
                  const fused_tensor *c0, const fused_tensor *w_ih, const fused_tensor *w_hh, \
                  const fused_tensor *b_ih, const fused_tensor *b_hh, const int64_t *lengths, \
                  int32_t reverse, int32_t compute))                                        \
  X(rnn_backward, (int32_t cell, fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0, \
                   fused_tensor *d_w_ih, fused_tensor *d_w_hh, fused_tensor *d_b_ih,        \
                   fused_tensor *d_b_hh, const fused_tensor *d_hs, const fused_tensor *d_hn, \
                   const fused_tensor *d_cn, fused_tensor *saved, const fused_tensor *xs,   \
                   const fused_tensor *w_ih, const fused_tensor *w_hh,                      \
                   const int64_t *lengths, int32_t reverse, int32_t accumulate,         \
                   int32_t compute))

/* The linear-recurrence engine (fused_linear_scan and its backward; scan.h, scan.cu);
 * lengths are on the host. */
#define FUSED_KERNELS_SCAN(X)                                                               \
  X(linear_scan, (fused_tensor *h, const fused_tensor *A, const fused_tensor *b,            \
                  const fused_tensor *h0, const fused_tensor *resets, const int64_t *lengths, \
                  int32_t reverse))                                                         \
  X(linear_scan_backward, (fused_tensor *d_A, fused_tensor *d_b, fused_tensor *d_h0,        \
                           const fused_tensor *d_h, const fused_tensor *A,                  \
                           const fused_tensor *h, const fused_tensor *h0,                   \
                           const fused_tensor *resets, const int64_t *lengths,              \
                           int32_t reverse))

#define FUSED_KERNELS_SPARSE(X)                                                             \
  X(spmm, (fused_tensor *out, const fused_tensor *row_ptr, const fused_tensor *col_idx,     \
           const fused_tensor *values, const fused_tensor *x, const fused_tensor *bias,     \
           int32_t relu))

#define FUSED_KERNELS_ARITHMETIC(X)                                                         \
  FUSED_KERNELS_POINTWISE(X) FUSED_KERNELS_REDUCE(X) FUSED_KERNELS_REDUCE_DIM(X)

#define FUSED_KERNELS_FLOATING(X)                                                           \
  FUSED_KERNELS_ADDMM(X) FUSED_KERNELS_OPTIM(X) FUSED_KERNELS_LOSS(X)                       \
  FUSED_KERNELS_EMBEDDING(X) FUSED_KERNELS_RNN(X) FUSED_KERNELS_SPARSE(X)                     \
  FUSED_KERNELS_SOFTMAX(X) FUSED_KERNELS_SCAN(X)

#define FUSED_KERNELS(X)                                                                    \
  FUSED_KERNELS_ANY_DTYPE(X) FUSED_KERNELS_ARITHMETIC(X) FUSED_KERNELS_CPU_ONLY(X)          \
  FUSED_KERNELS_CPU_ONLY_ANY_DTYPE(X) FUSED_KERNELS_FLOATING(X)

#endif
