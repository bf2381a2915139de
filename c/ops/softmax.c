/* Softmax, log-softmax and logsumexp along a dim: argument checks, then the device's kernel. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

static const char *softmax_name(int32_t log_softmax) {
  return log_softmax ? "log_softmax" : "softmax";
}

/* t a contiguous tensor with dim (0-based) among its dims. */
static int check_along(const char *fn, const char *arg, const fused_tensor *t, int32_t dim) {
  FUSED_TRY(check_tensor(fn, arg, t));
  FUSED_TRY(check_contiguous(fn, arg, t));
  if (dim >= 0 && dim < t->ndim) return 0;
  return fused_error("%s: argument 'dim' expected 0 to %d, got %lld", fn, t->ndim - 1,
                     (long long)dim);
}

/* out a contiguous output of ref's dtype, device and shape, apart from ref. */
static int check_result(const char *fn, const char *arg, const fused_tensor *out,
                        const char *ref_arg, const fused_tensor *ref) {
  FUSED_TRY(check_output(fn, arg, out));
  FUSED_TRY(check_like(fn, arg, out, ref_arg, ref));
  FUSED_TRY(check_contiguous(fn, arg, out));
  return check_no_overlap(fn, arg, out, ref_arg, ref, 0);
}

int fused_softmax_forward(fused_tensor *out, const fused_tensor *in, int32_t dim,
                          int32_t log_softmax) {
  const char *fn = softmax_name(log_softmax);
  FUSED_TRY(check_along(fn, "in", in, dim));
  FUSED_TRY(check_result(fn, "out", out, "in", in));
  FUSED_CALL_KERNEL(fn, "in", in, softmax_forward, out, in, dim, log_softmax != 0);
}

int fused_softmax_backward(fused_tensor *d_in, const fused_tensor *grad_out,
                           const fused_tensor *out, int32_t dim, int32_t log_softmax) {
  const char *fn = log_softmax ? "log_softmax_backward" : "softmax_backward";
  FUSED_TRY(check_along(fn, "out", out, dim));
  FUSED_TRY(check_along(fn, "grad_out", grad_out, dim));
  FUSED_TRY(check_like(fn, "grad_out", grad_out, "out", out));
  FUSED_TRY(check_result(fn, "d_in", d_in, "out", out));
  FUSED_TRY(check_no_overlap(fn, "d_in", d_in, "grad_out", grad_out, 0));
  FUSED_CALL_KERNEL(fn, "out", out, softmax_backward, d_in, grad_out, out, dim,
                    log_softmax != 0);
}

int fused_logsumexp_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  const char *fn = "logsumexp_dim";
  FUSED_TRY(check_along(fn, "in", in, dim));
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_same_dtype_device(fn, "out", out, "in", in));
  FUSED_TRY(check_contiguous(fn, "out", out));
  int64_t want[FUSED_MAX_DIMS];
  for (int32_t d = 0; d < in->ndim; d++) want[d] = d == dim ? 1 : in->sizes[d];
  FUSED_TRY(check_shape(fn, "out", out, in->ndim, want));
  FUSED_TRY(check_no_overlap(fn, "out", out, "in", in, 0));
  FUSED_CALL_KERNEL(fn, "in", in, logsumexp_dim, out, in, dim);
}
