/* Selection: where by a bool condition, index_select and gather by int64 indices (the kernels
 * check their values). */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

int fused_where(fused_tensor *out, const fused_tensor *cond, const fused_tensor *a,
                const fused_tensor *b) {
  const char *fn = "where";
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_like(fn, "a", a, "out", out));
  FUSED_TRY(check_like(fn, "b", b, "out", out));
  FUSED_TRY(check_tensor(fn, "cond", cond));
  FUSED_TRY(check_dtype(fn, "cond", cond, FUSED_BOOL));
  FUSED_TRY(check_same_device(fn, "cond", cond, "out", out));
  FUSED_TRY(check_shape(fn, "cond", cond, out->ndim, out->sizes));
  FUSED_TRY(check_no_overlap(fn, "out", out, "cond", cond, 0));
  FUSED_TRY(check_no_overlap(fn, "out", out, "a", a, 1));
  FUSED_TRY(check_no_overlap(fn, "out", out, "b", b, 1));
  FUSED_CALL_KERNEL(fn, "a", a, where, out, cond, a, b);
}

/* in contiguous with dim among its dims; index int64 on its device, contiguous; out
 * contiguous, in's dtype and device, apart from both. */
static int check_pick(const char *fn, const fused_tensor *out, const fused_tensor *in,
                      int32_t dim, const fused_tensor *index) {
  FUSED_TRY(check_tensor(fn, "in", in));
  FUSED_TRY(check_contiguous(fn, "in", in));
  if (dim < 0 || dim >= in->ndim)
    return fused_error("%s: argument 'dim' expected 0 to %d, got %lld", fn, in->ndim - 1,
                       (long long)dim);
  FUSED_TRY(check_tensor(fn, "index", index));
  FUSED_TRY(check_dtype(fn, "index", index, FUSED_INT64));
  FUSED_TRY(check_same_device(fn, "index", index, "in", in));
  FUSED_TRY(check_contiguous(fn, "index", index));
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_same_dtype_device(fn, "out", out, "in", in));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_no_overlap(fn, "out", out, "in", in, 0));
  return check_no_overlap(fn, "out", out, "index", index, 0);
}

int fused_index_select(fused_tensor *out, const fused_tensor *in, int32_t dim,
                       const fused_tensor *index) {
  const char *fn = "index_select";
  FUSED_TRY(check_pick(fn, out, in, dim, index));
  FUSED_TRY(check_ndim(fn, "index", index, 1));
  int64_t want[FUSED_MAX_DIMS];
  for (int32_t d = 0; d < in->ndim; d++) want[d] = d == dim ? index->sizes[0] : in->sizes[d];
  FUSED_TRY(check_shape(fn, "out", out, in->ndim, want));
  FUSED_CALL_KERNEL(fn, "in", in, index_select, out, in, dim, index);
}

int fused_count_nonzero(int64_t *count, const fused_tensor *in) {
  const char *fn = "count_nonzero";
  if (!count) return fused_error("%s: argument 'count' expected a pointer, got NULL", fn);
  FUSED_TRY(check_tensor(fn, "in", in));
  FUSED_TRY(check_contiguous(fn, "in", in));
  FUSED_CALL_KERNEL(fn, "in", in, nonzero, NULL, count, in);
}

int fused_nonzero(fused_tensor *out, const fused_tensor *in) {
  const char *fn = "nonzero";
  FUSED_TRY(check_tensor(fn, "in", in));
  int64_t count;
  FUSED_TRY(fused_count_nonzero(&count, in));
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_dtype(fn, "out", out, FUSED_INT64));
  FUSED_TRY(check_same_device(fn, "out", out, "in", in));
  FUSED_TRY(check_contiguous(fn, "out", out));
  const int64_t want[2] = {count, in->ndim};
  FUSED_TRY(check_shape(fn, "out", out, 2, want));
  FUSED_TRY(check_no_overlap(fn, "out", out, "in", in, 0));
  FUSED_CALL_KERNEL(fn, "in", in, nonzero, out, &count, in);
}

int fused_gather(fused_tensor *out, const fused_tensor *in, int32_t dim,
                 const fused_tensor *index) {
  const char *fn = "gather";
  FUSED_TRY(check_pick(fn, out, in, dim, index));
  int64_t want[FUSED_MAX_DIMS];
  for (int32_t d = 0; d < in->ndim; d++) want[d] = d == dim ? index->sizes[d] : in->sizes[d];
  if (index->ndim != in->ndim) FUSED_TRY(check_ndim(fn, "index", index, in->ndim));
  FUSED_TRY(check_shape(fn, "index", index, in->ndim, want));
  FUSED_TRY(check_shape(fn, "out", out, in->ndim, want));
  FUSED_CALL_KERNEL(fn, "in", in, gather, out, in, dim, index);
}
