/* Indexing that reads by a mask or writes by indices: masked_select, masked_scatter_,
 * index_put_, index_add_ (the kernels check the index values). */
#include <stdio.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* mask: bool, contiguous, of t's shape and device. */
static int check_mask(const char *fn, const char *arg, const fused_tensor *t,
                      const fused_tensor *mask) {
  FUSED_TRY(check_tensor(fn, "mask", mask));
  FUSED_TRY(check_dtype(fn, "mask", mask, FUSED_BOOL));
  FUSED_TRY(check_same_device(fn, "mask", mask, arg, t));
  FUSED_TRY(check_contiguous(fn, "mask", mask));
  return check_shape(fn, "mask", mask, t->ndim, t->sizes);
}

/* index: int64, 1-D, contiguous, on t's device. */
static int check_index(const char *fn, const char *arg, const fused_tensor *index,
                       const fused_tensor *t) {
  FUSED_TRY(check_tensor(fn, arg, index));
  FUSED_TRY(check_dtype(fn, arg, index, FUSED_INT64));
  FUSED_TRY(check_same_device(fn, arg, index, "self", t));
  FUSED_TRY(check_contiguous(fn, arg, index));
  return check_ndim(fn, arg, index, 1);
}

int fused_masked_select(fused_tensor *out, const fused_tensor *in, const fused_tensor *mask) {
  const char *fn = "masked_select";
  FUSED_TRY(check_tensor(fn, "in", in));
  FUSED_TRY(check_contiguous(fn, "in", in));
  FUSED_TRY(check_mask(fn, "in", in, mask));
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_same_dtype_device(fn, "out", out, "in", in));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_ndim(fn, "out", out, 1));
  FUSED_TRY(check_no_overlap(fn, "out", out, "in", in, 0));
  FUSED_TRY(check_no_overlap(fn, "out", out, "mask", mask, 0));
  FUSED_CALL_KERNEL(fn, "in", in, masked_select, out, in, mask);
}

int fused_masked_scatter(fused_tensor *t, const fused_tensor *mask, const fused_tensor *src) {
  const char *fn = "masked_scatter";
  FUSED_TRY(check_output(fn, "t", t));
  FUSED_TRY(check_contiguous(fn, "t", t));
  FUSED_TRY(check_mask(fn, "t", t, mask));
  FUSED_TRY(check_tensor(fn, "src", src));
  FUSED_TRY(check_same_dtype_device(fn, "src", src, "t", t));
  FUSED_TRY(check_contiguous(fn, "src", src));
  FUSED_TRY(check_no_overlap(fn, "t", t, "mask", mask, 0));
  FUSED_TRY(check_no_overlap(fn, "t", t, "src", src, 0));
  FUSED_CALL_KERNEL(fn, "t", t, masked_scatter, t, mask, src);
}

int fused_index_put(fused_tensor *t, const fused_tensor *const *indices, int32_t n_indices,
                    const fused_tensor *values, int32_t accumulate) {
  const char *fn = "index_put";
  FUSED_TRY(check_output(fn, "t", t));
  FUSED_TRY(check_contiguous(fn, "t", t));
  if (!indices) return fused_error("%s: argument 'indices' expected an array, got NULL", fn);
  if (n_indices < 1 || n_indices > t->ndim)
    return fused_error("%s: argument 'n_indices' expected 1 to %d (t's dims), got %d", fn,
                       t->ndim, n_indices);
  int64_t want[FUSED_MAX_DIMS];
  for (int32_t d = 0; d < n_indices; d++) {
    char arg[32];
    snprintf(arg, sizeof arg, "indices[%d]", d);
    FUSED_TRY(check_index(fn, arg, indices[d], t));
    FUSED_TRY(check_shape(fn, arg, indices[d], 1, indices[0]->sizes));
    FUSED_TRY(check_no_overlap(fn, "t", t, arg, indices[d], 0));
  }
  /* values: [n, the sizes of the dims no index covers] */
  want[0] = indices[0]->sizes[0];
  for (int32_t d = n_indices; d < t->ndim; d++) want[d - n_indices + 1] = t->sizes[d];
  FUSED_TRY(check_tensor(fn, "values", values));
  FUSED_TRY(check_same_dtype_device(fn, "values", values, "t", t));
  FUSED_TRY(check_contiguous(fn, "values", values));
  FUSED_TRY(check_shape(fn, "values", values, t->ndim - n_indices + 1, want));
  FUSED_TRY(check_no_overlap(fn, "t", t, "values", values, 0));
  FUSED_CALL_KERNEL(fn, "t", t, index_put, t, indices, n_indices, values, accumulate);
}

int fused_index_add(fused_tensor *t, int32_t dim, const fused_tensor *index,
                    const fused_tensor *source) {
  const char *fn = "index_add";
  FUSED_TRY(check_output(fn, "t", t));
  FUSED_TRY(check_contiguous(fn, "t", t));
  if (dim < 0 || dim >= t->ndim)
    return fused_error("%s: argument 'dim' expected 0 to %d, got %lld", fn, t->ndim - 1,
                       (long long)dim);
  FUSED_TRY(check_index(fn, "index", index, t));
  int64_t want[FUSED_MAX_DIMS];
  for (int32_t d = 0; d < t->ndim; d++) want[d] = d == dim ? index->sizes[0] : t->sizes[d];
  FUSED_TRY(check_tensor(fn, "source", source));
  FUSED_TRY(check_same_dtype_device(fn, "source", source, "t", t));
  FUSED_TRY(check_contiguous(fn, "source", source));
  FUSED_TRY(check_shape(fn, "source", source, t->ndim, want));
  FUSED_TRY(check_no_overlap(fn, "t", t, "index", index, 0));
  FUSED_TRY(check_no_overlap(fn, "t", t, "source", source, 0));
  FUSED_CALL_KERNEL(fn, "t", t, index_add, t, dim, index, source);
}
