/* The one place where an op meets its device and dtype.
 *
 * A backend (the CPU here, CUDA in libfused_cuda) registers a fused_device_ops: how to
 * allocate and copy on that device, and one fused_kernels table per dtype. Public API
 * functions validate their arguments, then end in FUSED_CALL_KERNEL: an op never switches
 * on device or dtype itself, and a new device or dtype is a new table, not an edit to ops.
 * Kernels receive validated tensors and may assume contiguous data where the API requires it.
 */
#ifndef FUSED_BACKEND_H
#define FUSED_BACKEND_H

#include "../fused.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fused_kernels {
  int (*fill)(fused_tensor *t, double value);
  int (*unary)(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha);
  int (*binary)(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                const fused_tensor *b);
  int (*binary_scalar)(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                       double scalar);
  int (*addmm)(fused_tensor *out, const fused_tensor *bias, const fused_tensor *a,
               const fused_tensor *b, double beta, double alpha);
  int (*sum_dim)(fused_tensor *out, const fused_tensor *in, int32_t dim);
  int (*cat)(fused_tensor *out, const fused_tensor *const *inputs, int32_t n, int32_t dim);
  int (*sgd_step)(fused_tensor *param, fused_tensor *momentum_buffer, const fused_tensor *grad,
                  double lr, double momentum, double weight_decay, int32_t init_buffer);
  int (*rmsprop_step)(fused_tensor *param, fused_tensor *square_avg,
                      fused_tensor *momentum_buffer, const fused_tensor *grad, double lr,
                      double alpha, double eps, double momentum, double weight_decay);
  int (*adam_step)(fused_tensor *param, fused_tensor *exp_avg, fused_tensor *exp_avg_sq,
                   const fused_tensor *grad, double lr, double beta1, double beta2, double eps,
                   double weight_decay, int64_t step);
  int (*sum_squares)(double *out, const fused_tensor *t);
  int (*cross_entropy_forward)(fused_tensor *loss, const fused_tensor *logits,
                               const fused_tensor *targets);
  int (*cross_entropy_backward)(fused_tensor *d_logits, const fused_tensor *logits,
                                const fused_tensor *targets, double grad_loss);
  int (*embedding_forward)(fused_tensor *out, const fused_tensor *weight,
                           const fused_tensor *indices);
  int (*embedding_backward)(fused_tensor *grad_weight, const fused_tensor *grad_out,
                            const fused_tensor *indices);
  int (*lltm_forward)(fused_tensor *new_h, fused_tensor *new_c, fused_tensor *saved,
                      const fused_tensor *x, const fused_tensor *h, const fused_tensor *c,
                      const fused_tensor *W, const fused_tensor *b);
  int (*lltm_backward)(fused_tensor *d_x, fused_tensor *d_h, fused_tensor *d_c,
                       fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *grad_h,
                       const fused_tensor *grad_c, const fused_tensor *saved,
                       const fused_tensor *x, const fused_tensor *h, const fused_tensor *W,
                       int32_t accumulate);
  int (*lltm_seq_forward)(fused_tensor *hs, fused_tensor *c_T, fused_tensor *saved,
                          const fused_tensor *xs, const fused_tensor *h0,
                          const fused_tensor *c0, const fused_tensor *W, const fused_tensor *b);
  int (*lltm_seq_backward)(fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                           fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *d_hs,
                           const fused_tensor *d_hT, const fused_tensor *d_cT,
                           fused_tensor *saved, const fused_tensor *xs,
                           const fused_tensor *h0, const fused_tensor *hs,
                           const fused_tensor *W, int32_t accumulate);
} fused_kernels;

typedef struct fused_device_ops {
  const char *name;
  void *(*alloc)(size_t bytes);             /* NULL with the error set on failure */
  void (*free)(void *ptr);
  /* Strided, dtype-converting copy within the device, or a contiguous same-dtype copy
   * between the host and the device (one side then lives on the CPU). */
  int (*copy)(fused_tensor *dst, const fused_tensor *src);
  const fused_kernels *kernels[FUSED_NUM_DTYPES];
} fused_device_ops;

/* tensor.c: the first byte of a storage, where offsets into it count from. */
const char *fused_storage_base(const fused_storage *s);

/* Called by a backend library when it loads and finds its device usable. */
int fused_register_device(int32_t device, const fused_device_ops *ops);

const fused_device_ops *fused_device_ops_for(const char *fn, int32_t device);
const fused_kernels *fused_kernels_for(const char *fn, const fused_tensor *t);

/* How every API function ends: returns kernels_for(fn, t)->op(...), or -1 with an error when
 * t's device has no backend, or no such kernel yet (its table leaves the member NULL). */
#define FUSED_CALL_KERNEL(fn, t, op, ...)                                                     \
  do {                                                                                        \
    const fused_kernels *kernels_ = fused_kernels_for(fn, t);                                 \
    if (!kernels_) return -1;                                                                 \
    if (!kernels_->op)                                                                        \
      return fused_error("%s: not implemented on the %s device yet", fn,                      \
                         fused_device_ops_for(fn, (t)->device_type)->name);                   \
    return kernels_->op(__VA_ARGS__);                                                         \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif
