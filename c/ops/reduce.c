/* Reductions along a dim (sum, prod, max, min), the scans and sort along a dim (cumsum,
 * cumprod, sort: results of the input's shape), and cat along a dim. */
#include <stdio.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

static int check_dim(const char *fn, const fused_tensor *t, int32_t dim) {
  if (dim >= 0 && dim < t->ndim) return 0;
  return fused_error("%s: argument 'dim' expected 0 to %d, got %lld", fn, t->ndim - 1,
                     (long long)dim);
}

/* out (and indices, int64, when given) contiguous, in's shape with dim of size 1. */
static int check_reduced(const char *fn, const char *arg, const fused_tensor *out,
                         const fused_tensor *in, int32_t dim, int32_t dtype) {
  FUSED_TRY(check_output(fn, arg, out));
  FUSED_TRY(check_dtype(fn, arg, out, dtype));
  FUSED_TRY(check_same_device(fn, arg, out, "in", in));
  FUSED_TRY(check_contiguous(fn, arg, out));
  int64_t want[FUSED_MAX_DIMS];
  for (int32_t d = 0; d < in->ndim; d++) want[d] = d == dim ? 1 : in->sizes[d];
  FUSED_TRY(check_shape(fn, arg, out, in->ndim, want));
  return check_no_overlap(fn, arg, out, "in", in, 0);
}

static int check_input(const char *fn, const fused_tensor *in, int32_t dim) {
  FUSED_TRY(check_tensor(fn, "in", in));
  FUSED_TRY(check_contiguous(fn, "in", in));
  return check_dim(fn, in, dim);
}

int fused_sum_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  const char *fn = "sum_dim";
  FUSED_TRY(check_input(fn, in, dim));
  FUSED_TRY(check_reduced(fn, "out", out, in, dim, in->scalar_type));
  FUSED_CALL_KERNEL(fn, "in", in, sum_dim, out, in, dim);
}

int fused_prod_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  const char *fn = "prod_dim";
  FUSED_TRY(check_input(fn, in, dim));
  FUSED_TRY(check_reduced(fn, "out", out, in, dim, in->scalar_type));
  FUSED_CALL_KERNEL(fn, "in", in, prod_dim, out, in, dim);
}

static int extremum(const char *fn, fused_tensor *values, fused_tensor *indices,
                    const fused_tensor *in, int32_t dim, int32_t largest) {
  FUSED_TRY(check_input(fn, in, dim));
  if (in->sizes[dim] == 0) /* as PyTorch: a sum of none is 0, a max of none is undefined */
    return fused_error("%s: argument 'in' expected a non-zero size in dim %d (the dim reduced), "
                       "got 0: the %s of no elements is undefined", fn, dim,
                       largest ? "max" : "min");
  FUSED_TRY(check_reduced(fn, "values", values, in, dim, in->scalar_type));
  if (indices) {
    FUSED_TRY(check_reduced(fn, "indices", indices, in, dim, FUSED_INT64));
    FUSED_TRY(check_no_overlap(fn, "indices", indices, "values", values, 0));
  }
  FUSED_CALL_KERNEL(fn, "in", in, extremum_dim, values, indices, in, dim, largest);
}

int fused_max_dim(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
                  int32_t dim) {
  return extremum("max_dim", values, indices, in, dim, 1);
}

int fused_min_dim(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
                  int32_t dim) {
  return extremum("min_dim", values, indices, in, dim, 0);
}

/* out (contiguous, of dtype) has in's shape; out may be in itself (each element is read
 * before it is written), no other part of it. */
static int check_scanned(const char *fn, const char *arg, const fused_tensor *out,
                         const fused_tensor *in, int32_t dtype, int identical_ok) {
  FUSED_TRY(check_output(fn, arg, out));
  FUSED_TRY(check_dtype(fn, arg, out, dtype));
  FUSED_TRY(check_same_device(fn, arg, out, "in", in));
  FUSED_TRY(check_contiguous(fn, arg, out));
  FUSED_TRY(check_shape(fn, arg, out, in->ndim, in->sizes));
  return check_no_overlap(fn, arg, out, "in", in, identical_ok);
}

static int cumulative(const char *fn, fused_tensor *out, const fused_tensor *in, int32_t dim,
                      int32_t product, int32_t reverse) {
  FUSED_TRY(check_input(fn, in, dim));
  FUSED_TRY(check_scanned(fn, "out", out, in, in->scalar_type, 1));
  FUSED_CALL_KERNEL(fn, "in", in, cumulative_dim, out, in, dim, product, reverse != 0);
}

int fused_cumsum(fused_tensor *out, const fused_tensor *in, int32_t dim, int32_t reverse) {
  return cumulative(reverse ? "d_cumsum" : "cumsum", out, in, dim, 0, reverse);
}

int fused_cumprod(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  return cumulative("cumprod", out, in, dim, 1, 0);
}

int fused_sort(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
               int32_t dim, int32_t descending) {
  const char *fn = "sort";
  FUSED_TRY(check_input(fn, in, dim));
  FUSED_TRY(check_scanned(fn, "values", values, in, in->scalar_type, 0));
  FUSED_TRY(check_scanned(fn, "indices", indices, in, FUSED_INT64, 0));
  FUSED_TRY(check_no_overlap(fn, "indices", indices, "values", values, 0));
  FUSED_CALL_KERNEL(fn, "in", in, sort_dim, values, indices, in, dim, descending != 0);
}

int fused_cat(fused_tensor *out, const fused_tensor *const *inputs, int32_t n, int32_t dim) {
  const char *fn = "cat";
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_dim(fn, out, dim));
  if (!inputs) return fused_error("%s: argument 'inputs' expected a list of inputs, got NULL", fn);
  if (n < 1) return fused_error("%s: argument 'n' expected at least one tensor, got %d", fn, n);
  int64_t total = 0;
  for (int32_t k = 0; k < n; k++) {
    char arg[32];
    snprintf(arg, sizeof arg, "inputs[%d]", k);
    FUSED_TRY(check_tensor(fn, arg, inputs[k]));
    FUSED_TRY(check_same_dtype_device(fn, arg, inputs[k], "out", out));
    FUSED_TRY(check_contiguous(fn, arg, inputs[k]));
    int64_t want[FUSED_MAX_DIMS];
    for (int32_t d = 0; d < out->ndim; d++) want[d] = d == dim ? inputs[k]->sizes[d] : out->sizes[d];
    if (inputs[k]->ndim != out->ndim) FUSED_TRY(check_ndim(fn, arg, inputs[k], out->ndim));
    FUSED_TRY(check_shape(fn, arg, inputs[k], out->ndim, want));
    FUSED_TRY(check_no_overlap(fn, "out", out, arg, inputs[k], 0));
    total += inputs[k]->sizes[dim];
  }
  if (total != out->sizes[dim])
    return fused_error("%s: argument 'out' expected size %lld along dim %d, got %lld", fn,
                       (long long)total, dim, (long long)out->sizes[dim]);
  FUSED_CALL_KERNEL(fn, "inputs[0]", inputs[0], cat, out, inputs, n, dim);
}
