#include <stdio.h>

#include "check.h"
#include "error.h"

const char *dtype_name(int32_t dtype) {
  const fused_dtype_info *info = fused_dtype_info_of(dtype);
  return info ? info->name : "an unknown dtype";
}

const char *device_name(int32_t device) {
  switch (device) {
    case FUSED_CPU: return "cpu";
    case FUSED_CUDA: return "cuda";
    default: return "an unknown device";
  }
}

const char *format_shape(char *buf, size_t len, int32_t ndim, const int64_t *sizes) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (int32_t d = 0; d < ndim && used < len; d++)
    used += (size_t)snprintf(buf + used, len - used, d ? ", %lld" : "%lld", (long long)sizes[d]);
  if (used < len) snprintf(buf + used, len - used, "]");
  return buf;
}

int check_tensor(const char *fn, const char *arg, const fused_tensor *t) {
  if (!t) return fused_error("%s: argument '%s' expected a tensor, got nil", fn, arg);
  if (t->scalar_type < 0 || t->scalar_type >= FUSED_NUM_DTYPES)
    return fused_error("%s: argument '%s' has an unknown dtype %d", fn, arg, t->scalar_type);
  if (t->device_type < 0 || t->device_type >= FUSED_NUM_DEVICES)
    return fused_error("%s: argument '%s' has an unknown device %d", fn, arg, t->device_type);
  if (t->ndim < 1 || t->ndim > FUSED_MAX_DIMS)
    return fused_error("%s: argument '%s' expected 1 to %d dims, got %d", fn, arg,
                       FUSED_MAX_DIMS, t->ndim);
  return 0;
}

int check_contiguous(const char *fn, const char *arg, const fused_tensor *t) {
  if (fused_tensor_is_contiguous(t)) return 0;
  char sizes[160], strides[160];
  return fused_error("%s: argument '%s' expected a contiguous tensor, got sizes %s with "
                     "strides %s (call :contiguous() first)", fn, arg,
                     format_shape(sizes, sizeof sizes, t->ndim, t->sizes),
                     format_shape(strides, sizeof strides, t->ndim, t->strides));
}

int check_ndim(const char *fn, const char *arg, const fused_tensor *t, int32_t ndim) {
  if (t->ndim == ndim) return 0;
  char got[160];
  return fused_error("%s: argument '%s' expected %d dims, got %d (shape %s)", fn, arg, ndim,
                     t->ndim, format_shape(got, sizeof got, t->ndim, t->sizes));
}

int check_shape(const char *fn, const char *arg, const fused_tensor *t, int32_t ndim,
                const int64_t *sizes) {
  int same = t->ndim == ndim;
  for (int32_t d = 0; same && d < ndim; d++) same = t->sizes[d] == sizes[d];
  if (same) return 0;
  char want[160], got[160];
  return fused_error("%s: argument '%s' expected shape %s, got %s", fn, arg,
                     format_shape(want, sizeof want, ndim, sizes),
                     format_shape(got, sizeof got, t->ndim, t->sizes));
}

int check_dtype(const char *fn, const char *arg, const fused_tensor *t, int32_t dtype) {
  if (t->scalar_type == dtype) return 0;
  return fused_error("%s: argument '%s' expected dtype %s, got %s", fn, arg, dtype_name(dtype),
                     dtype_name(t->scalar_type));
}

int check_same_device(const char *fn, const char *arg, const fused_tensor *t,
                      const char *ref_arg, const fused_tensor *ref) {
  if (t->device_type == ref->device_type) return 0;
  return fused_error("%s: argument '%s' expected device %s (as '%s'), got %s", fn, arg,
                     device_name(ref->device_type), ref_arg, device_name(t->device_type));
}

int check_same_dtype_device(const char *fn, const char *arg, const fused_tensor *t,
                            const char *ref_arg, const fused_tensor *ref) {
  if (t->scalar_type != ref->scalar_type)
    return fused_error("%s: argument '%s' expected dtype %s (as '%s'), got %s", fn, arg,
                       dtype_name(ref->scalar_type), ref_arg, dtype_name(t->scalar_type));
  return check_same_device(fn, arg, t, ref_arg, ref);
}

int check_like(const char *fn, const char *arg, const fused_tensor *t, const char *ref_arg,
               const fused_tensor *ref) {
  FUSED_TRY(check_tensor(fn, arg, t));
  FUSED_TRY(check_same_dtype_device(fn, arg, t, ref_arg, ref));
  int same = t->ndim == ref->ndim;
  for (int32_t d = 0; same && d < t->ndim; d++) same = t->sizes[d] == ref->sizes[d];
  if (same) return 0;
  char want[160], got[160];
  return fused_error("%s: argument '%s' expected shape %s (as '%s'), got %s", fn, arg,
                     format_shape(want, sizeof want, ref->ndim, ref->sizes), ref_arg,
                     format_shape(got, sizeof got, t->ndim, t->sizes));
}

int check_indices(const char *fn, const char *arg, const char *what, const int64_t *values,
                  int64_t n, int64_t count) {
  for (int64_t k = 0; k < n; k++)
    if (values[k] < 1 || values[k] > count)
      return fused_error("%s: argument '%s' expected %s 1 to %lld, got %lld at position %lld", fn,
                         arg, what, (long long)count, (long long)values[k], (long long)k + 1);
  return 0;
}

int convert_error(double value, int64_t position) {
  return fused_error("copy: argument 'src' expected integers in int64's range for an int64 "
                     "'dst', got %g at position %lld", value, (long long)position);
}
