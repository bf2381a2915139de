/* The linear-recurrence engine's API (fused_linear_scan, its backward): the layout in c/fused.h
 * set by b (T x B x S x D); every other tensor must fit it. */
#include <stdio.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* t: contiguous, of ref's dtype and device, of the shape sizes (what: how the sizes read). */
static int check_fits(const char *fn, const char *arg, const fused_tensor *t, const char *ref_arg,
                      const fused_tensor *ref, int32_t ndim, const int64_t *sizes,
                      const char *what) {
  FUSED_TRY(check_tensor(fn, arg, t));
  FUSED_TRY(check_same_dtype_device(fn, arg, t, ref_arg, ref));
  FUSED_TRY(check_contiguous(fn, arg, t));
  int same = t->ndim == ndim;
  for (int32_t d = 0; same && d < ndim; d++) same = t->sizes[d] == sizes[d];
  if (same) return 0;
  char want[160], got[160];
  return fused_error("%s: argument '%s' expected shape %s (%s), got %s", fn, arg,
                     format_shape(want, sizeof want, ndim, sizes), what,
                     format_shape(got, sizeof got, t->ndim, t->sizes));
}

/* The problem: ref (named ref_arg, T x B x S x D) sets the sizes; A, h0, resets and lengths fit
 * them. */
static int check_problem(const char *fn, const char *ref_arg, const fused_tensor *ref,
                         const fused_tensor *A, const fused_tensor *h0,
                         const fused_tensor *resets, const int64_t *lengths) {
  FUSED_TRY(check_tensor(fn, ref_arg, ref));
  FUSED_TRY(check_floating(fn, ref_arg, ref));
  FUSED_TRY(check_ndim(fn, ref_arg, ref, 4));
  FUSED_TRY(check_contiguous(fn, ref_arg, ref));
  const int64_t T = ref->sizes[0], B = ref->sizes[1], S = ref->sizes[2], D = ref->sizes[3];
  if (S < 1 || S > FUSED_SCAN_MAX_STATES)
    return fused_error("%s: argument '%s' expected 1 to %d states in dim 2, got %lld", fn,
                       ref_arg, FUSED_SCAN_MAX_STATES, (long long)S);
  FUSED_TRY(check_fits(fn, "A", A, ref_arg, ref, 5, (int64_t[]){T, B, S, S, D},
                       "T x B x S x S x D"));
  if (h0) FUSED_TRY(check_fits(fn, "h0", h0, ref_arg, ref, 3, (int64_t[]){B, S, D}, "B x S x D"));
  if (resets) {
    FUSED_TRY(check_tensor(fn, "resets", resets));
    FUSED_TRY(check_dtype(fn, "resets", resets, FUSED_BOOL));
    FUSED_TRY(check_same_device(fn, "resets", resets, ref_arg, ref));
    FUSED_TRY(check_contiguous(fn, "resets", resets));
    int64_t want[2] = {T, B};
    FUSED_TRY(check_shape(fn, "resets", resets, 2, want));
  }
  if (lengths) FUSED_TRY(check_indices(fn, "lengths", "step counts", lengths, B, T));
  return 0;
}

int fused_linear_scan(fused_tensor *h, const fused_tensor *A, const fused_tensor *b,
                      const fused_tensor *h0, const fused_tensor *resets, const int64_t *lengths,
                      int32_t reverse) {
  const char *fn = "linear_scan";
  FUSED_TRY(check_problem(fn, "b", b, A, h0, resets, lengths));
  FUSED_TRY(check_fits(fn, "h", h, "b", b, 4, b->sizes, "b's"));
  FUSED_TRY(check_outputs_apart(fn, 1, (fused_arg[]){{"h", h}},
                                4, (fused_arg[]){{"A", A}, {"b", b}, {"h0", h0},
                                                 {"resets", resets}},
                                -1, -1));
  FUSED_CALL_KERNEL(fn, "b", b, linear_scan, h, A, b, h0, resets, lengths, reverse != 0);
}

int fused_linear_scan_backward(fused_tensor *d_A, fused_tensor *d_b, fused_tensor *d_h0,
                               const fused_tensor *d_h, const fused_tensor *A,
                               const fused_tensor *h, const fused_tensor *h0,
                               const fused_tensor *resets, const int64_t *lengths,
                               int32_t reverse) {
  const char *fn = "linear_scan_backward";
  FUSED_TRY(check_problem(fn, "d_h", d_h, A, h0, resets, lengths));
  const int64_t *s = d_h->sizes;
  FUSED_TRY(check_fits(fn, "h", h, "d_h", d_h, 4, s, "d_h's"));
  FUSED_TRY(check_fits(fn, "d_A", d_A, "d_h", d_h, 5, (int64_t[]){s[0], s[1], s[2], s[2], s[3]},
                       "A's"));
  FUSED_TRY(check_fits(fn, "d_b", d_b, "d_h", d_h, 4, s, "d_h's"));
  if (d_h0)
    FUSED_TRY(check_fits(fn, "d_h0", d_h0, "d_h", d_h, 3, (int64_t[]){s[1], s[2], s[3]},
                         "B x S x D"));
  /* d_b may be d_h itself: each element of d_h is read before d_b's is written. */
  FUSED_TRY(check_outputs_apart(fn, 3, (fused_arg[]){{"d_b", d_b}, {"d_A", d_A}, {"d_h0", d_h0}},
                                5, (fused_arg[]){{"d_h", d_h}, {"A", A}, {"h", h}, {"h0", h0},
                                                 {"resets", resets}},
                                0, 0));
  FUSED_CALL_KERNEL(fn, "d_h", d_h, linear_scan_backward, d_A, d_b, d_h0, d_h, A, h, h0, resets,
                    lengths, reverse != 0);
}
