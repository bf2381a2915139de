/* The argument checks of check.h under the names fused_ext.h gives extensions. */
#include "../fused_ext.h"
#include "check.h"

int fused_check_tensor(const char *fn, const char *arg, const fused_tensor *t) {
  return check_tensor(fn, arg, t);
}

int fused_check_contiguous(const char *fn, const char *arg, const fused_tensor *t) {
  FUSED_TRY(check_tensor(fn, arg, t));
  return check_contiguous(fn, arg, t);
}

int fused_check_dtype(const char *fn, const char *arg, const fused_tensor *t, int32_t dtype) {
  FUSED_TRY(check_tensor(fn, arg, t));
  return check_dtype(fn, arg, t, dtype);
}

int fused_check_device(const char *fn, const char *arg, const fused_tensor *t, int32_t device) {
  FUSED_TRY(check_tensor(fn, arg, t));
  /* Where the device is missing, say so rather than blame the tensor. */
  if (!fused_device_available(device))
    return fused_error("%s: argument '%s' expected a %s tensor, but no %s device is present: %s",
                       fn, arg, device_name(device), device_name(device),
                       fused_device_unavailable_reason(device));
  if (t->device_type != device)
    return fused_error("%s: argument '%s' expected a %s tensor, got %s", fn, arg,
                       device_name(device), device_name(t->device_type));
  return 0;
}

int fused_check_shape(const char *fn, const char *arg, const fused_tensor *t, int32_t ndim,
                      const int64_t *sizes) {
  FUSED_TRY(check_tensor(fn, arg, t));
  return check_shape(fn, arg, t, ndim, sizes);
}

int fused_check_like(const char *fn, const char *arg, const fused_tensor *t, const char *ref_arg,
                     const fused_tensor *ref) {
  FUSED_TRY(check_tensor(fn, arg, t));
  FUSED_TRY(check_tensor(fn, ref_arg, ref));
  return check_like(fn, arg, t, ref_arg, ref);
}
