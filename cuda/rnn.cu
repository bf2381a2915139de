/* The sequence engine on CUDA (fused_rnn_forward/backward in fused.h): the CPU's algorithm
 * (c/cpu/generic/rnn.h) with cuBLAS for the GEMMs and one kernel per step each way over the
 * per-element maths of c/maths/cells.h, in the blocks of c/maths/cell_layout.h. Compiled, not
 * yet run on a GPU (docs/cells.md). compute is always FUSED_COMPUTE_DEFAULT here: the API
 * refuses bfloat16 compute on CUDA so far (c/core/check.c). */
#include "column_sums.cuh"
#include "common.cuh"
#include "../c/maths/cells.h"

/* Row-major C (m×n, ldc) = beta·C + op(A) (m×k) · op(B) (k×n): cuBLAS sees each row-major
 * matrix as its column-major transpose, so it computes Cᵀ = op(B)ᵀ·op(A)ᵀ. */
template <typename T>
static int gemm_rows(const char *fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T *a,
                     int64_t lda, const T *b, int64_t ldb, T beta, T *c, int64_t ldc) {
  return cuda_check_blas(fn, gemm(tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  (int)n, (int)m, (int)k, T(1), b, (int)ldb, a, (int)lda, beta, c,
                                  (int)ldc));
}

/* One step forward over B×H elements; a padded row (t at or past its length) carries h and
 * outputs zero (the cell state stays as it is in c). */
template <typename T>
__global__ void rnn_forward_kernel(int32_t cell, cell_layout L, int64_t ld, T *st, const T *gh,
                                   const T *b_ih, const T *b_hh, T *c, T *h_next, int64_t ld_next,
                                   T *out, int64_t ld_out, const int64_t *lengths, int64_t t,
                                   int64_t B, int64_t H) {
  GRID_STRIDE(i, B * H) {
    const int64_t r = i / H, j = i % H;
    T *s = st + r * ld, *hn = h_next + r * ld_next, *o = out + r * ld_out;
    if (lengths && t >= lengths[r]) {
      hn[j] = s[L.h_prev * H + j];
      o[j] = 0;
      continue;
    }
    T *cr = c ? c + r * H : nullptr;
    const T *g = gh + r * L.gates * H;
    switch (cell) {
      case FUSED_CELL_LLTM: rnn_lltm_forward(H, j, 1, s, g, b_ih, b_hh, cr, hn, o); break;
      case FUSED_CELL_LSTM: rnn_lstm_forward(H, j, 1, s, g, b_ih, b_hh, cr, hn, o); break;
      case FUSED_CELL_GRU: rnn_gru_forward(H, j, 1, s, g, b_ih, b_hh, cr, hn, o); break;
    }
  }
}

/* One step backward over B×H elements; a padded row gets zero gate gradients and passes dh
 * and dc on. */
template <typename T>
__global__ void rnn_backward_kernel(int32_t cell, cell_layout L, int64_t ld, T *st,
                                    const T *d_out, int64_t ld_out, T *dh, T *dc,
                                    const int64_t *lengths, int64_t t, int64_t B, int64_t H) {
  GRID_STRIDE(i, B * H) {
    const int64_t r = i / H, j = i % H;
    T *s = st + r * ld;
    if (lengths && t >= lengths[r]) {
      for (int32_t g = 0; g < L.gates; g++) s[(L.d_ih + g) * H + j] = s[(L.d_hh + g) * H + j] = 0;
      continue;
    }
    const T *d = d_out ? d_out + r * ld_out : nullptr;
    T *dhr = dh + r * H, *dcr = dc ? dc + r * H : nullptr;
    switch (cell) {
      case FUSED_CELL_LLTM: rnn_lltm_backward(H, j, 1, s, d, dhr, dcr); break;
      case FUSED_CELL_LSTM: rnn_lstm_backward(H, j, 1, s, d, dhr, dcr); break;
      case FUSED_CELL_GRU: rnn_gru_backward(H, j, 1, s, d, dhr, dcr); break;
    }
  }
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
    FUSED_LAUNCH(blocks_for(B * H), THREADS, 0, cuda_stream, rnn_forward_kernel<T>)(
        cell, L, ld, st, gh.as<T>(), (const T *)b_ih->data,
        b_hh ? (const T *)b_hh->data : nullptr, c,
        last ? (T *)h_n->data : s + (t + step) * B * ld + L.h_prev * H, last ? H : ld,
        (T *)hs->data + t * B * ld_hs, ld_hs, len.get(lengths), t, B, H);
    FUSED_TRY(cuda_check(fn, cudaGetLastError()));
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
    FUSED_LAUNCH(blocks_for(B * H), THREADS, 0, cuda_stream, rnn_backward_kernel<T>)(
        cell, L, ld, st, d_hs ? (const T *)d_hs->data + t * B * ld_dhs : nullptr, ld_dhs, dh, dc,
        len.get(lengths), t, B, H);
    FUSED_TRY(cuda_check(fn, cudaGetLastError()));
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
