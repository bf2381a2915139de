/* Softplus on the CPU; CUDA tensors go to softplus.cu (built only where cuda tensors run, on a
 * GPU or the CUDA emulator: elsewhere SOFTPLUS_NO_CUDA gives a clear error instead). */
#include <tgmath.h>

#include "softplus.h"

/* log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|). */
#define SOFTPLUS(x) (((x) > 0 ? (x) : 0) + log1p(exp(-fabs(x))))

#ifdef SOFTPLUS_NO_CUDA
int softplus_forward_cuda(fused_tensor *out, const fused_tensor *x) {
  return fused_error("softplus_forward: this build has no CUDA part (softplus.cu is built where cuda tensors run)");
}
int softplus_backward_cuda(fused_tensor *d_x, const fused_tensor *d_out, const fused_tensor *x) {
  return fused_error("softplus_backward: this build has no CUDA part (softplus.cu is built where cuda tensors run)");
}
#endif

static int check(const char *fn, const char *out_arg, const fused_tensor *out,
                 const fused_tensor *x) {
  FUSED_TRY(fused_check_contiguous(fn, "x", x));
  FUSED_TRY(fused_check_contiguous(fn, out_arg, out));
  return fused_check_like(fn, out_arg, out, "x", x);
}

int softplus_forward(fused_tensor *out, const fused_tensor *x) {
  const char *fn = "softplus_forward";
  FUSED_TRY(check(fn, "out", out, x));
  if (fused_device_of(x) == FUSED_CUDA) return softplus_forward_cuda(out, x);
  const int64_t n = fused_tensor_numel(x);
  FUSED_DISPATCH_FLOATING(fn, "x", x, {
    const scalar_t *a = FUSED_DATA(x, scalar_t);
    scalar_t *y = FUSED_DATA(out, scalar_t);
    for (int64_t i = 0; i < n; i++) y[i] = SOFTPLUS(a[i]);
  });
  return 0;
}

int softplus_backward(fused_tensor *d_x, const fused_tensor *d_out, const fused_tensor *x) {
  const char *fn = "softplus_backward";
  FUSED_TRY(check(fn, "d_x", d_x, x));
  FUSED_TRY(check(fn, "d_out", d_out, x));
  if (fused_device_of(x) == FUSED_CUDA) return softplus_backward_cuda(d_x, d_out, x);
  const int64_t n = fused_tensor_numel(x);
  FUSED_DISPATCH_FLOATING(fn, "x", x, {
    const scalar_t *a = FUSED_DATA(x, scalar_t), *g = FUSED_DATA(d_out, scalar_t);
    scalar_t *d = FUSED_DATA(d_x, scalar_t);
    for (int64_t i = 0; i < n; i++) d[i] = g[i] / (1 + exp(-a[i]));
  });
  return 0;
}
