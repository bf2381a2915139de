/* The LLTM over a sequence (its cell is T = 1): argument checks, then the sequence engine's
 * kernels with W split into the engine's two weights (see fused.h). */
#include <stdarg.h>
#include <stdio.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* Sizes of the problem: T, the batch and input size come from xs, H from h0. */
typedef struct { int64_t T, B, In, H; } lltm_dims;

/* t is a tensor of ref's dtype and device with the given shape, contiguous, or with rows
 * (check_rows: hs and d_hs may be one direction's half of a wider output) when `rows`; ref is
 * the validated xs. The printf-style `why` says where the expected sizes come from (formatted
 * only for the message). */
__attribute__((format(printf, 8, 9)))
static int check_operand(const char *fn, const char *arg, const fused_tensor *t,
                         const fused_tensor *ref, int32_t ndim, const int64_t *sizes, int rows,
                         const char *why, ...) {
  FUSED_TRY(check_tensor(fn, arg, t));
  FUSED_TRY(check_same_dtype_device(fn, arg, t, "xs", ref));
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

/* xs (T×B×I) and h (B×H, named h_arg) set the sizes; W must fit them. */
static int check_inputs(const char *fn, const fused_tensor *xs, const char *h_arg,
                        const fused_tensor *h, const fused_tensor *W, lltm_dims *dims) {
  FUSED_TRY(check_tensor(fn, "xs", xs));
  FUSED_TRY(check_ndim(fn, "xs", xs, 3));
  FUSED_TRY(check_contiguous(fn, "xs", xs));
  FUSED_TRY(check_tensor(fn, h_arg, h));
  FUSED_TRY(check_ndim(fn, h_arg, h, 2));
  dims->T = xs->sizes[0];
  dims->B = xs->sizes[1];
  dims->In = xs->sizes[2];
  dims->H = h->sizes[1];
  const int64_t H = dims->H, In = dims->In;
  FUSED_TRY(check_operand(fn, h_arg, h, xs, 2, (int64_t[]){dims->B, H}, 0,
                          "batch size %lld from 'xs'", (long long)dims->B));
  /* The sequence engine under it assumes at least one step, row and unit (see rnn.c). */
  if (dims->T == 0 || dims->B == 0 || dims->In == 0 || H == 0)
    return fused_error("%s: expected T, B, I and H >= 1, got T=%lld B=%lld I=%lld H=%lld (the "
                       "sequence engine takes no empty sequence or batch yet)", fn,
                       (long long)dims->T, (long long)dims->B, (long long)In, (long long)H);
  FUSED_TRY(check_operand(fn, "W", W, xs, 2, (int64_t[]){3 * H, H + In}, 0,
                          "3H x (H+I) with H = %lld from '%s' and I = %lld from 'xs'",
                          (long long)H, h_arg, (long long)In));
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
                      const fused_tensor *xs, const lltm_dims *d) {
  return check_operand(fn, arg, b, xs, 1, (int64_t[]){3 * d->H}, 0, "3H with H = %lld",
                       (long long)d->H);
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
                           const int64_t *lengths, int32_t reverse, int32_t compute) {
  const char *fn = "lltm_seq_forward";
  lltm_dims d;
  FUSED_TRY(check_inputs(fn, xs, "h0", h0, W, &d));
  FUSED_TRY(check_compute(fn, compute, xs));
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
  FUSED_CALL_KERNEL(fn, "xs", xs, rnn_forward, FUSED_CELL_LLTM, hs, h_T, c_T, saved, xs, h0, c0,
                    &w_ih, &w_hh, b, NULL, lengths, reverse != 0, compute);
}

int fused_lltm_seq_backward(fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                            fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *d_hs,
                            const fused_tensor *d_hT, const fused_tensor *d_cT,
                            fused_tensor *saved, const fused_tensor *xs, const fused_tensor *W,
                            const int64_t *lengths, int32_t reverse, int32_t accumulate,
                            int32_t compute) {
  const char *fn = "lltm_seq_backward";
  lltm_dims d;
  FUSED_TRY(check_inputs(fn, xs, "d_h0", d_h0, W, &d));
  FUSED_TRY(check_compute(fn, compute, xs));
  const int64_t state[2] = {d.B, d.H}, seq[3] = {d.T, d.B, d.H}, save[3] = {d.T, d.B, 5 * d.H};
  if (d_hs) FUSED_TRY(check_operand(fn, "d_hs", d_hs, xs, 3, seq, 1, "T x B x H"));
  if (d_hT) FUSED_TRY(check_operand(fn, "d_hT", d_hT, xs, 2, state, 0, "B x H"));
  if (d_cT) FUSED_TRY(check_operand(fn, "d_cT", d_cT, xs, 2, state, 0, "B x H"));
  FUSED_TRY(check_operand(fn, "saved", saved, xs, 3, save, 0, "T x B x 5H"));
  FUSED_TRY(check_operand(fn, "d_xs", d_xs, xs, 3, xs->sizes, 0, "as 'xs'"));
  FUSED_TRY(check_operand(fn, "d_c0", d_c0, xs, 2, state, 0, "B x H"));
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
  FUSED_CALL_KERNEL(fn, "xs", xs, rnn_backward, FUSED_CELL_LLTM, d_xs, d_h0, d_c0, &d_w_ih, &d_w_hh,
                    d_b, NULL, d_hs, d_hT, d_cT, saved, xs, &w_ih, &w_hh, lengths, reverse != 0,
                    accumulate != 0, compute);
}
