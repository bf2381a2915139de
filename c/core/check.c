#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "check.h"
#include "error.h"
#include "../maths/convert.h"

const char *dtype_name(int32_t dtype) {
  const fused_dtype_info *info = fused_dtype_info_of(dtype);
  return info ? info->name : "an unknown dtype";
}

const char *device_name(int32_t device) {
  const char *name = fused_device_name(device);
  return name ? name : "an unknown device";
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
  if (!t->storage)
    return fused_error("%s: argument '%s' expected a tensor, got a released one (no storage)",
                       fn, arg);
  if (t->scalar_type < 0 || t->scalar_type >= FUSED_NUM_DTYPES)
    return fused_error("%s: argument '%s' has an unknown dtype %d", fn, arg, t->scalar_type);
  if (t->device_type < 0 || t->device_type >= FUSED_NUM_DEVICES)
    return fused_error("%s: argument '%s' has an unknown device %d", fn, arg, t->device_type);
  if (t->ndim < 0 || t->ndim > FUSED_MAX_DIMS)
    return fused_error("%s: argument '%s' expected 0 to %d dims, got %d", fn, arg,
                       FUSED_MAX_DIMS, t->ndim);
  return check_extent(fn, arg, t);
}

int check_contiguous(const char *fn, const char *arg, const fused_tensor *t) {
  if (tensor_is_contiguous(t)) return 0;
  char sizes[160], strides[160];
  return fused_error("%s: argument '%s' expected a contiguous tensor, got sizes %s with "
                     "strides %s (call :contiguous() first)", fn, arg,
                     format_shape(sizes, sizeof sizes, t->ndim, t->sizes),
                     format_shape(strides, sizeof strides, t->ndim, t->strides));
}

static int is_empty(const fused_tensor *t) {
  for (int32_t d = 0; d < t->ndim; d++)
    if (t->sizes[d] == 0) return 1;
  return 0;
}

static int by_stride(const void *a, const void *b) {
  const int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
  return (x > y) - (x < y);
}

int check_writable(const char *fn, const char *arg, const fused_tensor *t) {
  /* The dims that are stepped along (size > 1) as (|stride|, size), sorted by stride: t does
   * not overlap itself when each stride passes the extent of the dims below it, the element
   * span sum (size - 1) * |stride| + 1. A view fits its storage, so nothing overflows. */
  int64_t dims[FUSED_MAX_DIMS][2];
  int32_t n = 0;
  for (int32_t d = 0; d < t->ndim; d++)
    if (t->sizes[d] > 1) {
      dims[n][0] = t->strides[d] < 0 ? -t->strides[d] : t->strides[d];
      dims[n++][1] = t->sizes[d];
    }
  qsort(dims, (size_t)n, sizeof dims[0], by_stride);
  int64_t extent = 1;
  int ok = 1;
  for (int32_t k = 0; ok && k < n; k++) {
    ok = dims[k][0] >= extent;
    extent += (dims[k][1] - 1) * dims[k][0];
  }
  if (ok || is_empty(t)) return 0;
  char sizes[160], strides[160];
  return fused_error("%s: argument '%s' expected a tensor whose elements do not overlap in "
                     "memory, got sizes %s with strides %s: more than one element of the "
                     "written-to tensor refers to a single memory location (an expanded view, "
                     "say); clone() it before writing", fn, arg,
                     format_shape(sizes, sizeof sizes, t->ndim, t->sizes),
                     format_shape(strides, sizeof strides, t->ndim, t->strides));
}

int check_output(const char *fn, const char *arg, const fused_tensor *t) {
  FUSED_TRY(check_tensor(fn, arg, t));
  return check_writable(fn, arg, t);
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

int check_csr(const char *fn, const int64_t *row_ptr, int64_t n_rows, const int64_t *col_idx,
              int64_t nnz, int64_t n_cols) {
  if (row_ptr[0] != 0)
    return fused_error("%s: argument 'row_ptr' expected 0 first, got %lld", fn,
                       (long long)row_ptr[0]);
  for (int64_t r = 0; r < n_rows; r++)
    if (row_ptr[r + 1] < row_ptr[r])
      return fused_error("%s: argument 'row_ptr' expected offsets that never decrease, got %lld "
                         "after %lld at position %lld", fn, (long long)row_ptr[r + 1],
                         (long long)row_ptr[r], (long long)r + 2);
  if (row_ptr[n_rows] != nnz)
    return fused_error("%s: argument 'row_ptr' expected %lld last (the number of entries, the "
                       "length of 'col_idx'), got %lld", fn, (long long)nnz,
                       (long long)row_ptr[n_rows]);
  return check_indices(fn, "col_idx", "column indices", col_idx, nnz, n_cols);
}

int convert_error(double value, int64_t position) {
  return fused_error("copy: argument 'src' expected integers in int64's range for an int64 "
                     "'dst', got %g at position %lld", value, (long long)position);
}

/* The shortest text that reads back as value: 1e+300, not 1.0000000000000001e+300; "nan",
 * never "-nan". */
static void number_text(char *got, size_t size, double value) {
  snprintf(got, size, "nan");
  for (int digits = 15; value == value && digits <= 17; digits++) {
    snprintf(got, size, "%.*g", digits, value);
    if (strtod(got, NULL) == value) break;
  }
}

/* The finite doubles from which float32's rounding gives an infinity: FLT_MAX plus half its
 * unit in the last place, and beyond (the tie rounds to even, up). */
#define FLOAT32_OVERFLOW 0x1.ffffffp+127

int fused_check_scalar(const char *fn, const char *arg, double value, int32_t dtype) {
  if (!fn || !arg)
    return fused_error("check_scalar: argument '%s' expected a name, got NULL", fn ? "arg" : "fn");
  if (!fused_dtype_info_of(dtype))
    return fused_error("check_scalar: argument 'dtype' expected 0 to %d, got %d",
                       FUSED_NUM_DTYPES - 1, (int)dtype);
  char got[32];
  if (dtype == FUSED_INT64 && !fits_int64(value)) {
    number_text(got, sizeof got, value);
    return fused_error("%s: argument '%s' expected an integer in int64's range [-2^63, 2^63) for "
                       "an int64 tensor, got %s", fn, arg, got);
  }
  if (dtype == FUSED_BOOL && value != 0 && value != 1) {
    number_text(got, sizeof got, value);
    return fused_error("%s: argument '%s' expected 0, 1, true or false for a bool tensor, got %s",
                       fn, arg, got);
  }
  /* A finite number that would round to an infinity, as PyTorch refuses it ("cannot be
   * converted to type at::Half without overflow"); float64 holds every Lua number. */
  const int overflows =
      value - value == 0 &&
      (dtype == FUSED_FLOAT32    ? fabs(value) >= FLOAT32_OVERFLOW
       : dtype == FUSED_FLOAT16  ? isinf(fused_float16_value(fused_float16_of(value)))
       : dtype == FUSED_BFLOAT16 ? isinf(fused_bfloat16_value(fused_bfloat16_of(value)))
                                 : 0);
  if (overflows) {
    number_text(got, sizeof got, value);
    return fused_error("%s: argument '%s' expected a number within %s's range, got %s", fn, arg,
                       fused_dtype_info_of(dtype)->name, got);
  }
  return 0;
}

/* The bytes [lo, hi) that t's elements occupy, as offsets from its storage's base. t comes from
 * tensor_init or tensor_view, which keep its extent inside the storage: nothing overflows. */
static void byte_range(const fused_tensor *t, int64_t *lo, int64_t *hi) {
  int64_t below = 0, above = 0;
  for (int32_t d = 0; d < t->ndim; d++) {
    const int64_t reach = (t->sizes[d] - 1) * t->strides[d];
    if (reach < 0) below += reach;
    else above += reach;
  }
  const int64_t elem = (int64_t)fused_dtype_size(t->scalar_type);
  const int64_t first = (int64_t)(t->data - fused_storage_base(t->storage));
  *lo = first + below * elem;
  *hi = first + (above + 1) * elem;
}

int tensors_overlap(const fused_tensor *a, const fused_tensor *b) {
  /* Storages never share memory; an empty tensor has no byte to share. */
  if (a->storage != b->storage || is_empty(a) || is_empty(b)) return 0;
  int64_t a_lo, a_hi, b_lo, b_hi;
  byte_range(a, &a_lo, &a_hi);
  byte_range(b, &b_lo, &b_hi);
  return a_lo < b_hi && b_lo < a_hi;
}

static int same_elements(const fused_tensor *a, const fused_tensor *b) {
  int same = a->data == b->data && a->scalar_type == b->scalar_type && a->ndim == b->ndim;
  for (int32_t d = 0; same && d < a->ndim; d++)
    same = a->sizes[d] == b->sizes[d] && a->strides[d] == b->strides[d];
  return same;
}

int check_no_overlap(const char *fn, const char *out_arg, const fused_tensor *out,
                     const char *in_arg, const fused_tensor *in, int identical_ok) {
  if (!in || in->storage != out->storage || !tensors_overlap(out, in)) return 0;
  if (identical_ok && same_elements(out, in)) return 0;
  if (identical_ok)
    return fused_error("%s: argument '%s' must be '%s' itself or not share memory with it, got "
                       "a view that overlaps it (pass a copy)", fn, out_arg, in_arg);
  return fused_error("%s: argument '%s' must not share memory with '%s', got a view that "
                     "overlaps it (pass a copy)", fn, out_arg, in_arg);
}

int check_outputs_apart(const char *fn, int n_out, const fused_arg *outs, int n_in,
                        const fused_arg *ins, int alias_out, int alias_in) {
  for (int o = 0; o < n_out; o++) {
    if (!outs[o].t) continue;
    FUSED_TRY(check_writable(fn, outs[o].arg, outs[o].t));
    for (int p = 0; p < o; p++)
      FUSED_TRY(check_no_overlap(fn, outs[o].arg, outs[o].t, outs[p].arg, outs[p].t, 0));
    for (int i = 0; i < n_in; i++)
      FUSED_TRY(check_no_overlap(fn, outs[o].arg, outs[o].t, ins[i].arg, ins[i].t,
                                 o == alias_out && i == alias_in));
  }
  return 0;
}

int check_rows(const char *fn, const char *arg, const fused_tensor *t) {
  const int32_t n = t->ndim;
  /* A 0-d tensor is one row of one element; an empty one has no row to read. */
  if (n == 0 || is_empty(t)) return 0;
  int ok = t->strides[n - 1] == 1 && (n < 2 || t->strides[n - 2] >= t->sizes[n - 1]);
  /* A dim of size 1 is never stepped along: its stride is free (a view narrowed to one). */
  for (int32_t d = 0; ok && d + 2 < n; d++)
    ok = t->sizes[d] == 1 || t->strides[d] == t->sizes[d + 1] * t->strides[d + 1];
  if (ok) return 0;
  char sizes[160], strides[160];
  return fused_error("%s: argument '%s' expected rows of unit stride, evenly spaced, got sizes %s "
                     "with strides %s (call :contiguous() first)", fn, arg,
                     format_shape(sizes, sizeof sizes, n, t->sizes),
                     format_shape(strides, sizeof strides, n, t->strides));
}

int check_compute(const char *fn, int32_t compute, const fused_tensor *xs) {
  if (compute != FUSED_COMPUTE_DEFAULT && compute != FUSED_COMPUTE_BFLOAT16)
    return fused_error("%s: argument 'compute' expected FUSED_COMPUTE_DEFAULT or "
                       "FUSED_COMPUTE_BFLOAT16, got %d", fn, (int)compute);
  if (compute == FUSED_COMPUTE_BFLOAT16 && xs->scalar_type != FUSED_FLOAT32)
    return fused_error("%s: argument 'compute' bfloat16 expected float32 tensors, got 'xs' %s "
                       "(bfloat16 products round float32 operands)", fn,
                       dtype_name(xs->scalar_type));
  return 0;
}
