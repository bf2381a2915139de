/* The sequence engine on CUDA (fused_rnn_forward/backward in fused.h): the CPU's algorithm
 * (c/cpu/generic/rnn.h) with cuBLAS for the GEMMs and one kernel per step each way over the
 * per-element maths of c/maths/cells.h, in the blocks of c/maths/cell_layout.h. The step
 * kernels are c/fused_cell_cuda.h's, over a built-in cell's step or, compiled in its
 * extension, a registered cell's.
 * Compiled, not yet run on a GPU (docs/cells.md). compute is always FUSED_COMPUTE_DEFAULT
 * here: the API refuses bfloat16 compute on CUDA so far (c/core/check.c). */
#include "column_sums.cuh"
#include "common.cuh"
#include "../c/fused_cell_cuda.h"

/* Row-major C (m×n, ldc) = beta·C + op(A) (m×k) · op(B) (k×n): cuBLAS sees each row-major
 * matrix as its column-major transpose, so it computes Cᵀ = op(B)ᵀ·op(A)ᵀ. */
template <typename T>
static int gemm_rows(const char *fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T *a,
                     int64_t lda, const T *b, int64_t ldb, T beta, T *c, int64_t ldc) {
  return cuda_check_blas(fn, gemm(tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  (int)n, (int)m, (int)k, T(1), b, (int)ldb, a, (int)lda, beta, c,
                                  (int)ldc));
}

/* The built-in cells' steps, written as a user cell's are (c/fused_cell_cuda.h): the CPU's
 * rows (generic/rnn.h) are the same VEC_FOR over the same steps of c/maths/cells.h, and every
 * cell, built-in or registered, runs in fused_cell_forward_kernel/_backward_kernel, which
 * handle a ragged batch's padded rows. */
FUSED_CELL_DEVICE_FORWARD(lltm, VEC_FOR(H, j, m, {
  rnn_lltm_forward(H, j, m, s, gh, b_ih, b_hh, c, h_next, out);
}))
FUSED_CELL_DEVICE_FORWARD(lstm, VEC_FOR(H, j, m, {
  rnn_lstm_forward(H, j, m, s, gh, b_ih, b_hh, c, h_next, out);
}))
FUSED_CELL_DEVICE_FORWARD(gru, VEC_FOR(H, j, m, {
  rnn_gru_forward(H, j, m, s, gh, b_ih, b_hh, c, h_next, out);
}))
FUSED_CELL_DEVICE_BACKWARD(lltm, VEC_FOR(H, j, m, {
  rnn_lltm_backward(H, j, m, s, d_out, dh, dc);
}))
FUSED_CELL_DEVICE_BACKWARD(lstm, VEC_FOR(H, j, m, {
  rnn_lstm_backward(H, j, m, s, d_out, dh, dc);
}))
FUSED_CELL_DEVICE_BACKWARD(gru, VEC_FOR(H, j, m, {
  rnn_gru_backward(H, j, m, s, d_out, dh, dc);
}))

template <typename T, typename Forward, typename Backward>
static int builtin_step(const char *fn, bool backward, const fused_cell_launch *p) {
  return backward ? fused_cell_launch_step(fn, fused_cell_backward_kernel<T, Backward>, p)
                  : fused_cell_launch_step(fn, fused_cell_forward_kernel<T, Forward>, p);
}

/* Queues cell's step (backward or not) from p: a built-in cell's kernel, or a registered
 * cell's through the device step its extension gave (fused_rnn_register_cell_cuda). */
static_assert(FUSED_NUM_CELLS == 3, "a cell added to FUSED_CELLS: add its case to cell_step");
template <typename T>
static int cell_step(const char *fn, int32_t cell, bool backward, const fused_cell_launch *p) {
  switch (cell) {
    case FUSED_CELL_LLTM:
      return builtin_step<T, lltm_forward_step, lltm_backward_step>(fn, backward, p);
    case FUSED_CELL_LSTM:
      return builtin_step<T, lstm_forward_step, lstm_backward_step>(fn, backward, p);
    case FUSED_CELL_GRU:
      return builtin_step<T, gru_forward_step, gru_backward_step>(fn, backward, p);
  }
  return fused_rnn_cell_cuda(cell, sizeof(T) == sizeof(float) ? FUSED_FLOAT32 : FUSED_FLOAT64,
                             backward)(p);
}

static fused_cell_launch launch_of(const cell_layout &L, int64_t ld, int64_t B, int64_t H,
                                   int64_t t, const int64_t *lengths, void *st) {
  fused_cell_launch p = {};
  p.B = B, p.H = H, p.ld = ld, p.t = t;
  p.gates = L.gates, p.h_prev = L.h_prev, p.d_ih = L.d_ih, p.d_hh = L.d_hh;
  p.lengths = lengths, p.s = st;
  return p;
}

/* The lengths on the device (the API has checked them on the host); NULL stays NULL. */
struct DeviceLengths {
  Scratch scratch;
  int status;
  DeviceLengths(const char *fn, const int64_t *lengths, int64_t B)
      : scratch(fn, lengths ? (size_t)B * sizeof(int64_t) : 1), status(scratch.ptr ? 0 : -1) {
    if (lengths && scratch.ptr)
      status = cuda_check(fn, cudaMemcpyAsync(scratch.ptr, lengths, (size_t)B * sizeof(int64_t),
                                              cudaMemcpyHostToDevice, cuda_stream));
  }
  const int64_t *get(const int64_t *lengths) const {
    return lengths ? scratch.as<const int64_t>() : nullptr;
  }
};

/* dst (B rows of n, ld_dst apart) = src (ld_src apart), or zero for a NULL src. */
template <typename T>
static int copy_rows(const char *fn, T *dst, int64_t ld_dst, const T *src, int64_t ld_src,
                     int64_t rows, int64_t n) {
  if (src == dst) return 0;
  if (!src)
    return cuda_check(fn, cudaMemset2DAsync(dst, ld_dst * sizeof(T), 0, n * sizeof(T), rows,
                                            cuda_stream));
  return cuda_check(fn, cudaMemcpy2DAsync(dst, ld_dst * sizeof(T), src, ld_src * sizeof(T),
                                          n * sizeof(T), rows, cudaMemcpyDeviceToDevice,
                                          cuda_stream));
}

template <typename T>
int cuda_rnn_forward(int32_t cell, fused_tensor *hs, fused_tensor *h_n, fused_tensor *c_n,
                     fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                     const fused_tensor *c0, const fused_tensor *w_ih, const fused_tensor *w_hh,
                     const fused_tensor *b_ih, const fused_tensor *b_hh, const int64_t *lengths,
                     int32_t reverse, int32_t compute) {
  const char *fn = "rnn_forward";
  const cell_layout L = cell_layout_of(cell);
  const int64_t T_ = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = h0->sizes[1];
  const int64_t GH = L.gates * H, ld = L.saved * H, ld_hs = hs->strides[1];
  Scratch gh(fn, (size_t)(B * GH) * sizeof(T));
  DeviceLengths len(fn, lengths, B);
  if (!gh.ptr || len.status) return -1;
  T *s = (T *)saved->data, *c = c_n ? (T *)c_n->data : nullptr;
  const T *wh = (const T *)w_hh->data;
  FUSED_TRY(gemm_rows(fn, false, true, T_ * B, GH, In, (const T *)xs->data, In,
                      (const T *)w_ih->data, w_ih->strides[0], T(0), s, ld));
  const int64_t first = reverse ? T_ - 1 : 0, step = reverse ? -1 : 1;
  FUSED_TRY(copy_rows(fn, s + first * B * ld + L.h_prev * H, ld, (const T *)h0->data, H, B, H));
  if (c) FUSED_TRY(copy_rows(fn, c, H, (const T *)c0->data, H, B, H));
  for (int64_t k = 0, t = first; k < T_; k++, t += step) {
    T *st = s + t * B * ld;
    const bool last = k == T_ - 1;
    FUSED_TRY(gemm_rows(fn, false, true, B, GH, H, st + L.h_prev * H, ld, wh, w_hh->strides[0],
                        T(0), gh.as<T>(), GH));
    fused_cell_launch p = launch_of(L, ld, B, H, t, len.get(lengths), st);
    p.gh = gh.ptr, p.b_ih = b_ih->data, p.b_hh = b_hh ? b_hh->data : nullptr, p.c = c;
    p.h_next = last ? (T *)h_n->data : s + (t + step) * B * ld + L.h_prev * H;
    p.ld_next = last ? H : ld, p.out = (T *)hs->data + t * B * ld_hs, p.ld_out = ld_hs;
    FUSED_TRY(cell_step<T>(fn, cell, false, &p));
  }
  return cuda_done(fn);
}

template <typename T>
int cuda_rnn_backward(int32_t cell, fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                      fused_tensor *d_w_ih, fused_tensor *d_w_hh, fused_tensor *d_b_ih,
                      fused_tensor *d_b_hh, const fused_tensor *d_hs, const fused_tensor *d_hn,
                      const fused_tensor *d_cn, fused_tensor *saved, const fused_tensor *xs,
                      const fused_tensor *w_ih, const fused_tensor *w_hh, const int64_t *lengths,
                      int32_t reverse, int32_t accumulate, int32_t compute) {
  const char *fn = "rnn_backward";
  const cell_layout L = cell_layout_of(cell);
  const int64_t T_ = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = d_h0->sizes[1];
  const int64_t GH = L.gates * H, ld = L.saved * H, ld_dhs = d_hs ? d_hs->strides[1] : 0;
  DeviceLengths len(fn, lengths, B);
  if (len.status) return -1;
  T *s = (T *)saved->data, *dh = (T *)d_h0->data, *dc = d_c0 ? (T *)d_c0->data : nullptr;
  FUSED_TRY(copy_rows(fn, dh, H, d_hn ? (const T *)d_hn->data : nullptr, H, B, H));
  if (dc) FUSED_TRY(copy_rows(fn, dc, H, d_cn ? (const T *)d_cn->data : nullptr, H, B, H));
  for (int64_t k = 0, t = reverse ? 0 : T_ - 1; k < T_; k++, t += reverse ? 1 : -1) {
    T *st = s + t * B * ld;
    fused_cell_launch p = launch_of(L, ld, B, H, t, len.get(lengths), st);
    p.d_out = d_hs ? (const T *)d_hs->data + t * B * ld_dhs : nullptr, p.ld_out = ld_dhs;
    p.dh = dh, p.dc = dc;
    FUSED_TRY(cell_step<T>(fn, cell, true, &p));
    FUSED_TRY(gemm_rows(fn, false, false, B, H, GH, st + L.d_hh * H, ld, (const T *)w_hh->data,
                        w_hh->strides[0], T(1), dh, H));
  }
  const T beta = accumulate ? T(1) : T(0);
  const T *d_ih = s + L.d_ih * H, *d_hh = s + L.d_hh * H;
  FUSED_TRY(gemm_rows(fn, false, false, T_ * B, In, GH, d_ih, ld, (const T *)w_ih->data,
                      w_ih->strides[0], T(0), (T *)d_xs->data, In));
  FUSED_TRY(gemm_rows(fn, true, false, GH, In, T_ * B, d_ih, ld, (const T *)xs->data, In, beta,
                      (T *)d_w_ih->data, d_w_ih->strides[0]));
  FUSED_TRY(gemm_rows(fn, true, false, GH, H, T_ * B, d_hh, ld, s + L.h_prev * H, ld, beta,
                      (T *)d_w_hh->data, d_w_hh->strides[0]));
  FUSED_TRY(column_sums(fn, (T *)d_b_ih->data, d_ih, T_ * B, GH, ld, accumulate != 0));
  if (d_b_hh)
    FUSED_TRY(column_sums(fn, (T *)d_b_hh->data, d_hh, T_ * B, GH, ld, accumulate != 0));
  return cuda_done(fn);
}

FUSED_KERNELS_RNN(FUSED_CUDA_INSTANTIATE_FLOATING)
