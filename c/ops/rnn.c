/* The sequence engine (fused_rnn_forward/backward in fused.h): argument checks, then the
 * device's kernels. c/maths/cell_layout.h says what each cell keeps. */
#include <stdio.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"
#include "../maths/cell_layout.h"

int32_t fused_rnn_saved_blocks(int32_t cell) {
  const cell_layout L = cell_layout_of(cell);
  if (!L.gates) return fused_error("rnn_saved_blocks: unknown cell %d", cell);
  return L.saved;
}

typedef struct {
  int32_t cell;
  cell_layout L;
  int64_t T, B, In, H;
} rnn_dims;

/* t (named arg) has the given shape and xs's dtype and device; contiguous, or with rows
 * (check_rows) when rows. NULL is an error unless optional. */
static int check_part(const char *fn, const char *arg, const fused_tensor *t,
                      const fused_tensor *xs, int32_t ndim, const int64_t *sizes, int rows,
                      const char *why) {
  FUSED_TRY(check_tensor(fn, arg, t));
  FUSED_TRY(check_same_dtype_device(fn, arg, t, "xs", xs));
  int same = t->ndim == ndim;
  for (int32_t d = 0; same && d < ndim; d++) same = t->sizes[d] == sizes[d];
  if (!same) {
    char want[160], got[160];
    return fused_error("%s: argument '%s' expected shape %s (%s), got %s", fn, arg,
                       format_shape(want, sizeof want, ndim, sizes), why,
                       format_shape(got, sizeof got, t->ndim, t->sizes));
  }
  return rows ? check_rows(fn, arg, t) : check_contiguous(fn, arg, t);
}

/* The cell state's tensors: B×(has_c·H) for a cell with one (B×H: the LSTM's c), NULL for the
 * GRU. */
static int check_state_c(const char *fn, const char *arg, const fused_tensor *t,
                         const fused_tensor *xs, const rnn_dims *d, int optional) {
  if (!d->L.has_c) {
    if (t) return fused_error("%s: argument '%s' expected NULL (the %s cell has no cell state)",
                              fn, arg, fused_rnn_cell(d->cell)->name);
    return 0;
  }
  if (!t && optional) return 0;
  return check_part(fn, arg, t, xs, 2, (int64_t[]){d->B, d->L.has_c * d->H}, 0,
                    d->L.has_c == 1 ? "B x H" : "B x (states after h) H");
}

/* xs (T×B×I), h (B×H, named h_arg) and the cell set the sizes; the weights must fit them. */
static int check_problem(const char *fn, int32_t cell, const fused_tensor *xs, const char *h_arg,
                         const fused_tensor *h, const fused_tensor *w_ih,
                         const fused_tensor *w_hh, const int64_t *lengths, rnn_dims *d) {
  d->cell = cell;
  d->L = cell_layout_of(cell);
  if (!d->L.gates)
    return fused_error("%s: argument 'cell' expected a built-in cell (FUSED_CELLS) or a "
                       "registered cell's id, got %d", fn, cell);
  FUSED_TRY(check_tensor(fn, "xs", xs));
  FUSED_TRY(check_ndim(fn, "xs", xs, 3));
  FUSED_TRY(check_contiguous(fn, "xs", xs));
  /* A registered cell runs on CUDA through the device steps its extension gave it. */
  if (cell >= FUSED_NUM_CELLS && xs->device_type == FUSED_CUDA &&
      !fused_rnn_cell_cuda(cell, FUSED_FLOAT64, 0))
    return fused_error("%s: the %s cell has no CUDA steps, got 'xs' on %s (a fused.cell.define "
                       "cell builds them on its first CUDA run; a fused.ext.cell needs "
                       "cuda_sources: docs/extending.md)", fn, fused_rnn_cell(cell)->name,
                       device_name(xs->device_type));
  d->T = xs->sizes[0], d->B = xs->sizes[1], d->In = xs->sizes[2];
  FUSED_TRY(check_tensor(fn, h_arg, h));
  FUSED_TRY(check_ndim(fn, h_arg, h, 2));
  d->H = h->sizes[1];
  FUSED_TRY(check_part(fn, h_arg, h, xs, 2, (int64_t[]){d->B, d->H}, 0, "B from 'xs' x H"));
  /* The engine's thread split, scratch and GEMMs assume at least one step, row and unit. */
  if (d->T == 0 || d->B == 0 || d->In == 0 || d->H == 0)
    return fused_error("%s: expected T, B, I and H >= 1, got T=%lld B=%lld I=%lld H=%lld (the "
                       "sequence engine takes no empty sequence or batch yet)", fn,
                       (long long)d->T, (long long)d->B, (long long)d->In, (long long)d->H);
  if (d->L.x && d->In != d->H)
    return fused_error("%s: argument 'xs' expected I = H = %lld (the %s cell's step reads the "
                       "layer's input at its unit), got I=%lld", fn, (long long)d->H,
                       fused_rnn_cell(cell)->name, (long long)d->In);
  const int64_t GH = d->L.gates * d->H;
  char why[96];
  snprintf(why, sizeof why, "%d H x I for the %s, I from 'xs'", (int)d->L.gates,
           fused_rnn_cell(cell)->name);
  FUSED_TRY(check_part(fn, "w_ih", w_ih, xs, 2, (int64_t[]){GH, d->In}, 1, why));
  /* w_hh's columns give the heads: H of them is the dense matrix, H / heads its blocks. */
  FUSED_TRY(check_tensor(fn, "w_hh", w_hh));
  const int64_t Dh = w_hh->ndim == 2 && w_hh->sizes[1] > 0 && d->H % w_hh->sizes[1] == 0
                         ? w_hh->sizes[1] : d->H;
  snprintf(why, sizeof why, "%d H x H / heads for the %s, heads dividing H", (int)d->L.gates,
           fused_rnn_cell(cell)->name);
  FUSED_TRY(check_part(fn, "w_hh", w_hh, xs, 2, (int64_t[]){GH, Dh}, 1, why));
  if (lengths) FUSED_TRY(check_indices(fn, "lengths", "step counts", lengths, d->B, d->T));
  /* The largest GEMM operands must fit BLAS's int: T·B rows of S·H, and the weights. */
  int64_t rows, wide;
  if (__builtin_mul_overflow(d->T, d->B, &rows) ||
      __builtin_mul_overflow(rows, (int64_t)d->L.saved * d->H + d->In, &wide) ||
      wide > INT32_MAX || w_ih->strides[0] * GH > INT32_MAX || w_hh->strides[0] * GH > INT32_MAX)
    return fused_error("%s: sizes T=%lld B=%lld I=%lld H=%lld are too large for BLAS", fn,
                       (long long)d->T, (long long)d->B, (long long)d->In, (long long)d->H);
  return 0;
}

/* A bias of G·H: required for the LSTM and GRU, NULL for the LLTM's recurrent one; the
 * recurrent one of a cell with per-unit parameters holds them after its G·H. */
static int check_bias(const char *fn, const char *arg, const fused_tensor *b,
                      const fused_tensor *xs, const rnn_dims *d, int hh) {
  if (hh && d->cell == FUSED_CELL_LLTM) {
    if (b) return fused_error("%s: argument '%s' expected NULL (the LLTM has one bias, b_ih)",
                              fn, arg);
    return 0;
  }
  if (hh && d->L.params)
    return check_part(fn, arg, b, xs, 1, (int64_t[]){(d->L.gates + d->L.params) * d->H}, 0,
                      "G H biases then the cell's per-unit parameters, H each");
  return check_part(fn, arg, b, xs, 1, (int64_t[]){d->L.gates * d->H}, 0, "G H");
}

static int check_saved(const char *fn, const fused_tensor *saved, const fused_tensor *xs,
                       const rnn_dims *d) {
  return check_part(fn, "saved", saved, xs, 3, (int64_t[]){d->T, d->B, d->L.saved * d->H}, 0,
                    "T x B x S H, S from fused_rnn_saved_blocks");
}

int fused_rnn_forward(int32_t cell, fused_tensor *hs, fused_tensor *h_n, fused_tensor *c_n,
                      fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                      const fused_tensor *c0, const fused_tensor *w_ih, const fused_tensor *w_hh,
                      const fused_tensor *b_ih, const fused_tensor *b_hh,
                      const int64_t *lengths, int32_t reverse, int32_t compute) {
  const char *fn = "rnn_forward";
  rnn_dims d;
  FUSED_TRY(check_problem(fn, cell, xs, "h0", h0, w_ih, w_hh, lengths, &d));
  FUSED_TRY(check_compute(fn, compute, xs));
  FUSED_TRY(check_bias(fn, "b_ih", b_ih, xs, &d, 0));
  FUSED_TRY(check_bias(fn, "b_hh", b_hh, xs, &d, 1));
  FUSED_TRY(check_state_c(fn, "c0", c0, xs, &d, 0));
  FUSED_TRY(check_part(fn, "hs", hs, xs, 3, (int64_t[]){d.T, d.B, d.L.outputs * d.H}, 1,
                       d.L.outputs == 1 ? "T x B x H" : "T x B x (output states) H"));
  FUSED_TRY(check_part(fn, "h_n", h_n, xs, 2, (int64_t[]){d.B, d.H}, 0, "as 'h0'"));
  FUSED_TRY(check_state_c(fn, "c_n", c_n, xs, &d, 0));
  FUSED_TRY(check_saved(fn, saved, xs, &d));
  /* c_n may be c0 itself: the kernel carries the cell state in c_n from c0. */
  FUSED_TRY(check_outputs_apart(
      fn, 4, (fused_arg[]){{"hs", hs}, {"h_n", h_n}, {"c_n", c_n}, {"saved", saved}}, 7,
      (fused_arg[]){{"xs", xs}, {"h0", h0}, {"c0", c0}, {"w_ih", w_ih}, {"w_hh", w_hh},
                    {"b_ih", b_ih}, {"b_hh", b_hh}},
      2, 2));
  FUSED_CALL_KERNEL(fn, "xs", xs, rnn_forward, cell, hs, h_n, c_n, saved, xs, h0, c0, w_ih, w_hh,
                    b_ih, b_hh, lengths, reverse != 0, compute);
}

int fused_rnn_backward(int32_t cell, fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                       fused_tensor *d_w_ih, fused_tensor *d_w_hh, fused_tensor *d_b_ih,
                       fused_tensor *d_b_hh, const fused_tensor *d_hs, const fused_tensor *d_hn,
                       const fused_tensor *d_cn, fused_tensor *saved, const fused_tensor *xs,
                       const fused_tensor *w_ih, const fused_tensor *w_hh,
                       const int64_t *lengths, int32_t reverse, int32_t accumulate,
                       int32_t compute) {
  const char *fn = "rnn_backward";
  rnn_dims d;
  FUSED_TRY(check_problem(fn, cell, xs, "d_h0", d_h0, w_ih, w_hh, lengths, &d));
  FUSED_TRY(check_compute(fn, compute, xs));
  const int64_t state[2] = {d.B, d.H};
  if (d_hs)
    FUSED_TRY(check_part(fn, "d_hs", d_hs, xs, 3, (int64_t[]){d.T, d.B, d.L.outputs * d.H}, 1,
                         d.L.outputs == 1 ? "T x B x H" : "T x B x (output states) H"));
  if (d_hn) FUSED_TRY(check_part(fn, "d_hn", d_hn, xs, 2, state, 0, "B x H"));
  FUSED_TRY(check_state_c(fn, "d_cn", d_cn, xs, &d, 1));
  FUSED_TRY(check_saved(fn, saved, xs, &d));
  FUSED_TRY(check_part(fn, "d_xs", d_xs, xs, 3, xs->sizes, 0, "as 'xs'"));
  FUSED_TRY(check_state_c(fn, "d_c0", d_c0, xs, &d, 0));
  FUSED_TRY(check_part(fn, "d_w_ih", d_w_ih, xs, 2, w_ih->sizes, 1, "as 'w_ih'"));
  FUSED_TRY(check_part(fn, "d_w_hh", d_w_hh, xs, 2, w_hh->sizes, 1, "as 'w_hh'"));
  FUSED_TRY(check_bias(fn, "d_b_ih", d_b_ih, xs, &d, 0));
  FUSED_TRY(check_bias(fn, "d_b_hh", d_b_hh, xs, &d, 1));
  /* saved is written too; d_h0 may be d_hn and d_c0 d_cn themselves: the kernel carries the
   * gradients at the state in them. */
  FUSED_TRY(check_outputs_apart(
      fn, 7, (fused_arg[]){{"d_h0", d_h0}, {"d_xs", d_xs}, {"d_w_ih", d_w_ih}, {"d_w_hh", d_w_hh},
                           {"d_b_ih", d_b_ih}, {"d_b_hh", d_b_hh}, {"saved", saved}},
      6, (fused_arg[]){{"d_hn", d_hn}, {"d_cn", d_cn}, {"d_hs", d_hs}, {"xs", xs},
                       {"w_ih", w_ih}, {"w_hh", w_hh}},
      0, 0));
  FUSED_TRY(check_outputs_apart(
      fn, 1, (fused_arg[]){{"d_c0", d_c0}}, 13,
      (fused_arg[]){{"d_cn", d_cn}, {"d_h0", d_h0}, {"d_xs", d_xs}, {"d_w_ih", d_w_ih},
                    {"d_w_hh", d_w_hh}, {"d_b_ih", d_b_ih}, {"d_b_hh", d_b_hh}, {"saved", saved},
                    {"d_hn", d_hn}, {"d_hs", d_hs}, {"xs", xs}, {"w_ih", w_ih}, {"w_hh", w_hh}},
      0, 0));
  FUSED_CALL_KERNEL(fn, "xs", xs, rnn_backward, cell, d_xs, d_h0, d_c0, d_w_ih, d_w_hh, d_b_ih,
                    d_b_hh, d_hs, d_hn, d_cn, saved, xs, w_ih, w_hh, lengths, reverse != 0,
                    accumulate != 0, compute);
}
