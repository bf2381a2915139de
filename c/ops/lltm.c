/* The LLTM cell and sequence: argument checks, then the device's kernels (see fused.h). */
#include <stdarg.h>
#include <stdio.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* Sizes of the problem: the batch and input size come from x (or xs), H from h (or h0). */
typedef struct { int64_t T, B, In, H; } lltm_dims;

/* t is a tensor of ref's dtype and device with the given shape, contiguous, or with rows
 * (check_rows: hs and d_hs may be one direction's half of a wider output) when `rows`; ref is
 * the validated x (B×I) or xs (T×B×I). The printf-style `why` says where the expected sizes
 * come from (formatted only for the message). */
__attribute__((format(printf, 8, 9)))
static int check_operand(const char *fn, const char *arg, const fused_tensor *t,
                         const fused_tensor *ref, int32_t ndim, const int64_t *sizes, int rows,
                         const char *why, ...) {
  FUSED_TRY(check_tensor(fn, arg, t));
  FUSED_TRY(check_same_dtype_device(fn, arg, t, ref->ndim == 3 ? "xs" : "x", ref));
  int same = t->ndim == ndim;
  for (int32_t d = 0; same && d < ndim; d++) same = t->sizes[d] == sizes[d];
  if (!same) {
    char want[160], got[160], because[200];
    va_list ap;
    va_start(ap, why);
    vsnprintf(because, sizeof because, why, ap);
    va_end(ap);
    return fused_error("%s: argument '%s' expected shape %s (%s), got %s", fn, arg,
                       format_shape(want, sizeof want, ndim, sizes), because,
                       format_shape(got, sizeof got, t->ndim, t->sizes));
  }
  return rows ? check_rows(fn, arg, t) : check_contiguous(fn, arg, t);
}

/* x (B×I, or T×B×I for a sequence) and h (B×H) set the sizes; W must fit them. */
static int check_inputs(const char *fn, const char *x_arg, const fused_tensor *x,
                        const char *h_arg, const fused_tensor *h, const fused_tensor *W,
                        int32_t x_ndim, lltm_dims *dims) {
  FUSED_TRY(check_tensor(fn, x_arg, x));
  FUSED_TRY(check_ndim(fn, x_arg, x, x_ndim));
  FUSED_TRY(check_contiguous(fn, x_arg, x));
  FUSED_TRY(check_tensor(fn, h_arg, h));
  FUSED_TRY(check_ndim(fn, h_arg, h, 2));
  dims->T = x_ndim == 3 ? x->sizes[0] : 1;
  dims->B = x->sizes[x_ndim - 2];
  dims->In = x->sizes[x_ndim - 1];
  dims->H = h->sizes[1];
  const int64_t H = dims->H, In = dims->In;
  FUSED_TRY(check_operand(fn, h_arg, h, x, 2, (int64_t[]){dims->B, H}, 0,
                          "batch size %lld from '%s'", (long long)dims->B, x_arg));
  FUSED_TRY(check_operand(fn, "W", W, x, 2, (int64_t[]){3 * H, H + In}, 0,
                          "3H x (H+I) with H = %lld from '%s' and I = %lld from '%s'",
                          (long long)H, h_arg, (long long)In, x_arg));
  /* H and In are sizes of contiguous tensors, so 4H and H + In fit; the products may not. */
  int64_t steps, gemm_x, gemm_w;
  if (__builtin_mul_overflow(dims->T, dims->B, &steps) ||
      __builtin_mul_overflow(steps, H + In, &gemm_x) ||
      __builtin_mul_overflow(3 * H, H + In, &gemm_w) || gemm_x > INT32_MAX || gemm_w > INT32_MAX)
    return fused_error("%s: sizes T=%lld B=%lld I=%lld H=%lld are too large for BLAS", fn,
                       (long long)dims->T, (long long)dims->B, (long long)In, (long long)H);
  return 0;
}

/* A bias (b, or d_b) of 3H. */
static int check_bias(const char *fn, const char *arg, const fused_tensor *b,
                      const fused_tensor *x, const lltm_dims *d) {
  return check_operand(fn, arg, b, x, 1, (int64_t[]){3 * d->H}, 0, "3H with H = %lld",
                       (long long)d->H);
}


int fused_lltm_forward(fused_tensor *new_h, fused_tensor *new_c, fused_tensor *saved,
                       const fused_tensor *x, const fused_tensor *h, const fused_tensor *c,
                       const fused_tensor *W, const fused_tensor *b) {
  const char *fn = "lltm_forward";
  lltm_dims d;
  FUSED_TRY(check_inputs(fn, "x", x, "h", h, W, 2, &d));
  FUSED_TRY(check_bias(fn, "b", b, x, &d));
  const int64_t state[2] = {d.B, d.H}, save[2] = {d.B, 4 * d.H};
  FUSED_TRY(check_operand(fn, "c", c, x, 2, state, 0, "as 'h'"));
  FUSED_TRY(check_operand(fn, "new_h", new_h, x, 2, state, 0, "as 'h'"));
  FUSED_TRY(check_operand(fn, "new_c", new_c, x, 2, state, 0, "as 'h'"));
  FUSED_TRY(check_operand(fn, "saved", saved, x, 2, save, 0, "B x 4H"));
  /* new_c may be c itself: the kernel reads each element of c before writing it. */
  FUSED_TRY(check_outputs_apart(fn, 3, (fused_arg[]){{"new_h", new_h}, {"new_c", new_c},
                                                    {"saved", saved}},
                                5, (fused_arg[]){{"x", x}, {"h", h}, {"c", c}, {"W", W}, {"b", b}},
                                1, 2));
  FUSED_CALL_KERNEL(fn, x, lltm_forward, new_h, new_c, saved, x, h, c, W, b);
}

int fused_lltm_backward(fused_tensor *d_x, fused_tensor *d_h, fused_tensor *d_c,
                        fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *grad_h,
                        const fused_tensor *grad_c, const fused_tensor *saved,
                        const fused_tensor *x, const fused_tensor *h, const fused_tensor *W,
                        int32_t accumulate) {
  const char *fn = "lltm_backward";
  lltm_dims d;
  FUSED_TRY(check_inputs(fn, "x", x, "h", h, W, 2, &d));
  const int64_t state[2] = {d.B, d.H}, save[2] = {d.B, 4 * d.H};
  FUSED_TRY(check_operand(fn, "grad_h", grad_h, x, 2, state, 0, "as 'h'"));
  FUSED_TRY(check_operand(fn, "grad_c", grad_c, x, 2, state, 0, "as 'h'"));
  FUSED_TRY(check_operand(fn, "saved", saved, x, 2, save, 0, "B x 4H"));
  FUSED_TRY(check_operand(fn, "d_x", d_x, x, 2, x->sizes, 0, "as 'x'"));
  FUSED_TRY(check_operand(fn, "d_h", d_h, x, 2, state, 0, "as 'h'"));
  FUSED_TRY(check_operand(fn, "d_c", d_c, x, 2, state, 0, "as 'h'"));
  FUSED_TRY(check_operand(fn, "d_W", d_W, x, 2, W->sizes, 0, "as 'W'"));
  FUSED_TRY(check_bias(fn, "d_b", d_b, x, &d));
  /* d_c may be grad_c itself: the kernel reads each element of grad_c before writing it. */
  FUSED_TRY(check_outputs_apart(fn, 5, (fused_arg[]){{"d_x", d_x}, {"d_h", d_h}, {"d_c", d_c},
                                                    {"d_W", d_W}, {"d_b", d_b}},
                                6, (fused_arg[]){{"grad_h", grad_h}, {"grad_c", grad_c},
                                                 {"saved", saved}, {"x", x}, {"h", h}, {"W", W}},
                                2, 1));
  FUSED_CALL_KERNEL(fn, x, lltm_backward, d_x, d_h, d_c, d_W, d_b, grad_h, grad_c, saved, x, h,
                    W, accumulate != 0);
}

/* The engine's operands for the LLTM's W (or d_W): its first H columns are the recurrent
 * weight, the last I the input weight. */
static void split_weight(const fused_tensor *W, int64_t H, fused_tensor *w_ih, fused_tensor *w_hh) {
  *w_hh = *W;
  *w_ih = *W;
  w_hh->sizes[1] = H;
  w_ih->sizes[1] = W->sizes[1] - H;
  w_ih->data += H * (int64_t)fused_dtype_size(W->scalar_type);
}

int fused_lltm_seq_forward(fused_tensor *hs, fused_tensor *h_T, fused_tensor *c_T,
                           fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                           const fused_tensor *c0, const fused_tensor *W, const fused_tensor *b,
                           const int64_t *lengths, int32_t reverse) {
  const char *fn = "lltm_seq_forward";
  lltm_dims d;
  FUSED_TRY(check_inputs(fn, "xs", xs, "h0", h0, W, 3, &d));
  FUSED_TRY(check_bias(fn, "b", b, xs, &d));
  const int64_t state[2] = {d.B, d.H}, seq[3] = {d.T, d.B, d.H}, save[3] = {d.T, d.B, 5 * d.H};
  FUSED_TRY(check_operand(fn, "c0", c0, xs, 2, state, 0, "as 'h0'"));
  FUSED_TRY(check_operand(fn, "hs", hs, xs, 3, seq, 1, "T x B x H"));
  FUSED_TRY(check_operand(fn, "h_T", h_T, xs, 2, state, 0, "as 'h0'"));
  FUSED_TRY(check_operand(fn, "c_T", c_T, xs, 2, state, 0, "as 'h0'"));
  FUSED_TRY(check_operand(fn, "saved", saved, xs, 3, save, 0, "T x B x 5H"));
  if (lengths) FUSED_TRY(check_indices(fn, "lengths", "step counts", lengths, d.B, d.T));
  /* c_T may be c0 itself: the kernel carries the cell state in c_T from c0. */
  FUSED_TRY(check_outputs_apart(fn, 4, (fused_arg[]){{"hs", hs}, {"h_T", h_T}, {"c_T", c_T},
                                                    {"saved", saved}},
                                5, (fused_arg[]){{"xs", xs}, {"h0", h0}, {"c0", c0}, {"W", W},
                                                 {"b", b}},
                                2, 2));
  fused_tensor w_ih, w_hh;
  split_weight(W, d.H, &w_ih, &w_hh);
  FUSED_CALL_KERNEL(fn, xs, rnn_forward, FUSED_CELL_LLTM, hs, h_T, c_T, saved, xs, h0, c0, &w_ih,
                    &w_hh, b, NULL, lengths, reverse != 0);
}

int fused_lltm_seq_backward(fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                            fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *d_hs,
                            const fused_tensor *d_hT, const fused_tensor *d_cT,
                            fused_tensor *saved, const fused_tensor *xs, const fused_tensor *W,
                            const int64_t *lengths, int32_t reverse, int32_t accumulate) {
  const char *fn = "lltm_seq_backward";
  lltm_dims d;
  FUSED_TRY(check_inputs(fn, "xs", xs, "d_h0", d_h0, W, 3, &d));
  const int64_t state[2] = {d.B, d.H}, seq[3] = {d.T, d.B, d.H}, save[3] = {d.T, d.B, 5 * d.H};
  FUSED_TRY(check_operand(fn, "d_hs", d_hs, xs, 3, seq, 1, "T x B x H"));
  if (d_hT) FUSED_TRY(check_operand(fn, "d_hT", d_hT, xs, 2, state, 0, "as 'd_h0'"));
  if (d_cT) FUSED_TRY(check_operand(fn, "d_cT", d_cT, xs, 2, state, 0, "as 'd_h0'"));
  FUSED_TRY(check_operand(fn, "saved", saved, xs, 3, save, 0, "T x B x 5H"));
  FUSED_TRY(check_operand(fn, "d_xs", d_xs, xs, 3, xs->sizes, 0, "as 'xs'"));
  FUSED_TRY(check_operand(fn, "d_c0", d_c0, xs, 2, state, 0, "as 'd_h0'"));
  FUSED_TRY(check_operand(fn, "d_W", d_W, xs, 2, W->sizes, 0, "as 'W'"));
  FUSED_TRY(check_bias(fn, "d_b", d_b, xs, &d));
  if (lengths) FUSED_TRY(check_indices(fn, "lengths", "step counts", lengths, d.B, d.T));
  /* saved is written too; d_h0 may be d_hT and d_c0 d_cT themselves: the kernel carries the
   * gradients at the state in them. */
  FUSED_TRY(check_outputs_apart(fn, 5, (fused_arg[]){{"d_h0", d_h0}, {"d_xs", d_xs},
                                                    {"d_W", d_W}, {"d_b", d_b}, {"saved", saved}},
                                5, (fused_arg[]){{"d_hT", d_hT}, {"d_cT", d_cT}, {"d_hs", d_hs},
                                                 {"xs", xs}, {"W", W}},
                                0, 0));
  FUSED_TRY(check_outputs_apart(fn, 1, (fused_arg[]){{"d_c0", d_c0}},
                                9, (fused_arg[]){{"d_cT", d_cT}, {"d_h0", d_h0}, {"d_xs", d_xs},
                                                 {"d_W", d_W}, {"d_b", d_b}, {"saved", saved},
                                                 {"d_hT", d_hT}, {"d_hs", d_hs}, {"xs", xs}},
                                0, 0));
  fused_tensor w_ih, w_hh, d_w_ih, d_w_hh;
  split_weight(W, d.H, &w_ih, &w_hh);
  split_weight(d_W, d.H, &d_w_ih, &d_w_hh);
  FUSED_CALL_KERNEL(fn, xs, rnn_backward, FUSED_CELL_LLTM, d_xs, d_h0, d_c0, &d_w_ih, &d_w_hh, d_b,
                    NULL, d_hs, d_hT, d_cT, saved, xs, &w_ih, &w_hh, lengths, reverse != 0,
                    accumulate != 0);
}
