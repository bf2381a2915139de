/* The sequence engine on CUDA (fused_rnn_forward/backward in fused.h): the CPU's algorithm
 * (c/cpu/generic/rnn.h) with cuBLAS for the GEMMs and one kernel per step each way over the
 * per-element maths of c/maths/cells.h, in the blocks of c/maths/cell_layout.h. The step
 * kernels are c/fused_cell_cuda.h's, over a built-in cell's step or, compiled in its
 * extension, a registered cell's.
 *
 * compute = FUSED_COMPUTE_BFLOAT16 (float32 only, c/core/check.c): the operands the CPU rounds
 * are rounded here, by the same function (fused_bf16_compute_bits), into bfloat16 scratch: w_ih,
 * w_hh and xs once a call, h_prev each step forward; backward, each step's gate gradients
 * (float32 in saved for the bias sums, as on the CPU), then w_ih, xs and every h_prev for the
 * products after the loop. They are multiplied by cublasGemmEx (bfloat16 A and B, float32 C
 * and compute), so both devices multiply the same numbers and differ only in the order of the
 * float32 sums (spec/bf16_spec.lua, on the emulated device).
 * Compiled, not yet run on a GPU (docs/cells.md): only a GPU can show the speed, that cuBLAS
 * picks bfloat16 tensor-core kernels for these shapes, and the real memory model. */
#include <type_traits>

#include "column_sums.cuh"
#include "common.cuh"
#include "../c/fused_cell_cuda.h"
#include "../c/maths/convert.h"

/* Row-major C (m×n, ldc) = beta·C + op(A) (m×k) · op(B) (k×n): cuBLAS sees each row-major
 * matrix as its column-major transpose, so it computes Cᵀ = op(B)ᵀ·op(A)ᵀ. A and B are T, or
 * rounded (fused_bfloat16) with T float32. */
template <typename A, typename T>
static int gemm_rows(const char *fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const A *a,
                     int64_t lda, const A *b, int64_t ldb, T beta, T *c, int64_t ldc) {
  if constexpr (std::is_same<A, fused_bfloat16>::value && !std::is_same<T, float>::value)
    return fused_error("%s: bfloat16 products expected float32 tensors", fn); /* refused before */
  else
    return cuda_check_blas(fn, gemm(tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                    (int)n, (int)m, (int)k, T(1), b, (int)ldb, a, (int)lda, beta, c,
                                    (int)ldc));
}

/* gemm_rows over `batches` products, operand i of each s_i elements after the last one's. */
template <typename A, typename T>
static int gemm_rows_strided(const char *fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                             const A *a, int64_t lda, int64_t sa, const A *b, int64_t ldb,
                             int64_t sb, T beta, T *c, int64_t ldc, int64_t sc, int64_t batches) {
  if constexpr (std::is_same<A, fused_bfloat16>::value && !std::is_same<T, float>::value)
    return fused_error("%s: bfloat16 products expected float32 tensors", fn); /* refused before */
  else
    return cuda_check_blas(fn, gemm_strided(tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                                            ta ? CUBLAS_OP_T : CUBLAS_OP_N, (int)n, (int)m, (int)k,
                                            T(1), b, (int)ldb, sb, a, (int)lda, sa, beta, c,
                                            (int)ldc, sc, (int)batches));
}

/* The recurrent products of a block-diagonal w_hh (docs/cells.md, Heads; the CPU's in
 * c/cpu/generic/rnn_heads.h): NH heads of Dh = H / NH units, w_hh G·H×Dh, its block q = g·NH + n
 * (rows q·Dh on) gate g's for head n. Per gate, one strided batched GEMM over the NH heads,
 * each Dh×Dh: 1/NH of the dense product's multiply-adds. Forward: gh's (m×GH) columns q·Dh on
 * = head n's columns of h · block qᵀ. */
template <typename A, typename T>
static int heads_forward(const char *fn, int64_t m, int64_t GH, int64_t H, int64_t Dh,
                         const A *h, int64_t ldh, const A *w, int64_t ldw, T *gh) {
  for (int64_t g = 0; g < GH / H; g++)
    FUSED_TRY(gemm_rows_strided(fn, false, true, m, Dh, Dh, h, ldh, Dh, w + g * H * ldw, ldw,
                                Dh * ldw, T(0), gh + g * H, GH, Dh, H / Dh));
  return 0;
}

/* Backward: head n's columns of dh += the gate gradients' columns q·Dh on · block q. */
template <typename A, typename T>
static int heads_backward(const char *fn, int64_t m, int64_t GH, int64_t H, int64_t Dh,
                          const A *dg, int64_t ldg, const A *w, int64_t ldw, T *dh) {
  for (int64_t g = 0; g < GH / H; g++)
    FUSED_TRY(gemm_rows_strided(fn, false, false, m, Dh, Dh, dg + g * H, ldg, Dh, w + g * H * ldw,
                                ldw, Dh * ldw, T(1), dh, H, Dh, H / Dh));
  return 0;
}

/* d_w_hh's blocks (beta·d_w +) = the gate gradients' columns ᵀ · h's head columns over k rows. */
template <typename A, typename T>
static int heads_weight_grad(const char *fn, int64_t k, int64_t GH, int64_t H, int64_t Dh,
                             const A *dg, int64_t ldg, const A *h, int64_t ldh, T beta, T *dw,
                             int64_t ldw) {
  for (int64_t g = 0; g < GH / H; g++)
    FUSED_TRY(gemm_rows_strided(fn, true, false, Dh, Dh, k, dg + g * H, ldg, Dh, h, ldh, Dh, beta,
                                dw + g * H * ldw, ldw, Dh * ldw, H / Dh));
  return 0;
}

/* dst (rows×cols, ld_dst) = src (ld_src) rounded to bfloat16 as the CPU rounds (c/cpu/bf16.c). */
__global__ void bf16_rows_kernel(fused_bfloat16 *dst, int64_t ld_dst, const float *src,
                                 int64_t ld_src, int64_t rows, int64_t cols) {
  GRID_STRIDE(i, rows * cols) {
    const int64_t r = i / cols, j = i - r * cols;
    uint32_t u;
    memcpy(&u, src + r * ld_src + j, sizeof u);
    dst[r * ld_dst + j].bits = (uint16_t)(fused_bf16_compute_bits(u) >> 16);
  }
}

template <typename T>
static int bf16_rows(const char *fn, fused_bfloat16 *dst, int64_t ld_dst, const T *src,
                     int64_t ld_src, int64_t rows, int64_t cols) {
  if constexpr (!std::is_same<T, float>::value) {
    return fused_error("%s: bfloat16 products expected float32 tensors", fn); /* refused before */
  } else {
    if (rows * cols == 0) return 0; /* no grid of 0 blocks */
    FUSED_LAUNCH(blocks_for(rows * cols), THREADS, 0, cuda_stream, bf16_rows_kernel)(
        dst, ld_dst, src, ld_src, rows, cols);
    return cuda_check(fn, cudaGetLastError());
  }
}

/* compute bfloat16's rounded operands: one scratch block cut into parts of the given element
 * counts, each 16-byte aligned (cuBLAS's tensor-core kernels want aligned operands); one byte,
 * every part NULL, for the tensors' own dtype. Check scratch.ptr before use. */
template <int N>
struct Rounded {
  Scratch scratch;
  fused_bfloat16 *part[N] = {};
  static int64_t aligned(int64_t n) { return (n + 7) / 8 * 8; }
  static size_t bytes(bool bf, const int64_t (&n)[N]) {
    int64_t all = 0;
    for (int i = 0; i < N; i++) all += aligned(n[i]);
    return bf ? (size_t)all * sizeof(fused_bfloat16) : 1;
  }
  Rounded(const char *fn, bool bf, const int64_t (&n)[N]) : scratch(fn, bytes(bf, n)) {
    if (!bf || !scratch.ptr) return;
    fused_bfloat16 *p = scratch.as<fused_bfloat16>();
    for (int i = 0; i < N; i++) {
      part[i] = p;
      p += aligned(n[i]);
    }
  }
};

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
  p.has_c = L.has_c, p.params = L.params, p.outputs = L.outputs;
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

/* dst (rows×cols, ld_dst) += src (ld_src): the steps' direct gradients at x into d_xs. */
template <typename T>
__global__ void add_rows_kernel(T *dst, int64_t ld_dst, const T *src, int64_t ld_src,
                                int64_t rows, int64_t cols) {
  GRID_STRIDE(i, rows * cols) {
    const int64_t r = i / cols, j = i - r * cols;
    dst[r * ld_dst + j] += src[r * ld_src + j];
  }
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
  const int64_t Dh = w_hh->sizes[1], ldw = w_hh->strides[0];
  const bool bf = compute == FUSED_COMPUTE_BFLOAT16;
  Scratch gh(fn, (size_t)(B * GH) * sizeof(T));
  DeviceLengths len(fn, lengths, B);
  /* Rounded w_ih, w_hh, xs and one step's h_prev. */
  Rounded<4> r(fn, bf, {GH * In, GH * Dh, T_ * B * In, B * H});
  if (!gh.ptr || len.status || !r.scratch.ptr) return -1;
  fused_bfloat16 *wi_r = r.part[0], *wh_r = r.part[1], *x_r = r.part[2], *h_r = r.part[3];
  T *s = (T *)saved->data, *c = c_n ? (T *)c_n->data : nullptr;
  const T *x = (const T *)xs->data, *wi = (const T *)w_ih->data, *wh = (const T *)w_hh->data;
  if (bf) {
    FUSED_TRY(bf16_rows(fn, wi_r, In, wi, w_ih->strides[0], GH, In));
    FUSED_TRY(bf16_rows(fn, wh_r, Dh, wh, ldw, GH, Dh));
    FUSED_TRY(bf16_rows(fn, x_r, In, x, In, T_ * B, In));
    FUSED_TRY(gemm_rows(fn, false, true, T_ * B, GH, In, x_r, In, wi_r, In, T(0), s, ld));
  } else {
    FUSED_TRY(gemm_rows(fn, false, true, T_ * B, GH, In, x, In, wi, w_ih->strides[0], T(0), s,
                        ld));
  }
  if (L.x) { /* the CPU's rnn_x_rows: xs's rows as they are, d_x's block zero */
    FUSED_TRY(copy_rows(fn, s + L.x * H, ld, x, H, T_ * B, H));
    FUSED_TRY(copy_rows<T>(fn, s + L.d_x * H, ld, nullptr, 0, T_ * B, H));
  }
  const int64_t first = reverse ? T_ - 1 : 0, step = reverse ? -1 : 1;
  FUSED_TRY(copy_rows(fn, s + first * B * ld + L.h_prev * H, ld, (const T *)h0->data, H, B, H));
  const int64_t CH = L.has_c * H;
  if (c) FUSED_TRY(copy_rows(fn, c, CH, (const T *)c0->data, CH, B, CH));
  for (int64_t k = 0, t = first; k < T_; k++, t += step) {
    T *st = s + t * B * ld;
    const bool last = k == T_ - 1;
    if (bf) {
      FUSED_TRY(bf16_rows(fn, h_r, H, st + L.h_prev * H, ld, B, H));
      if (Dh < H) FUSED_TRY(heads_forward(fn, B, GH, H, Dh, h_r, H, wh_r, Dh, gh.as<T>()));
      else FUSED_TRY(gemm_rows(fn, false, true, B, GH, H, h_r, H, wh_r, H, T(0), gh.as<T>(), GH));
    } else if (Dh < H) {
      FUSED_TRY(heads_forward(fn, B, GH, H, Dh, st + L.h_prev * H, ld, wh, ldw, gh.as<T>()));
    } else {
      FUSED_TRY(gemm_rows(fn, false, true, B, GH, H, st + L.h_prev * H, ld, wh, w_hh->strides[0],
                          T(0), gh.as<T>(), GH));
    }
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
  const int64_t Dh = w_hh->sizes[1], ldw = w_hh->strides[0];
  const bool bf = compute == FUSED_COMPUTE_BFLOAT16, apart = L.d_ih != L.d_hh;
  DeviceLengths len(fn, lengths, B);
  /* Rounded w_hh, every step's recurrent gate gradients, the input ones where the cell keeps
   * them apart (the GRU), w_ih, xs and every h_prev. */
  Rounded<6> r(fn, bf, {GH * Dh, T_ * B * GH, apart ? T_ * B * GH : 0, GH * In, T_ * B * In,
                        T_ * B * H});
  if (len.status || !r.scratch.ptr) return -1;
  fused_bfloat16 *wh_r = r.part[0], *dg_r = r.part[1], *dgi_r = apart ? r.part[2] : dg_r;
  fused_bfloat16 *wi_r = r.part[3], *x_r = r.part[4], *h_r = r.part[5];
  T *s = (T *)saved->data, *dh = (T *)d_h0->data, *dc = d_c0 ? (T *)d_c0->data : nullptr;
  const T *x = (const T *)xs->data, *wi = (const T *)w_ih->data, *wh = (const T *)w_hh->data;
  FUSED_TRY(copy_rows(fn, dh, H, d_hn ? (const T *)d_hn->data : nullptr, H, B, H));
  const int64_t CH = L.has_c * H;
  if (dc) FUSED_TRY(copy_rows(fn, dc, CH, d_cn ? (const T *)d_cn->data : nullptr, CH, B, CH));
  if (bf) FUSED_TRY(bf16_rows(fn, wh_r, Dh, wh, ldw, GH, Dh));
  for (int64_t k = 0, t = reverse ? 0 : T_ - 1; k < T_; k++, t += reverse ? 1 : -1) {
    T *st = s + t * B * ld;
    fused_cell_launch p = launch_of(L, ld, B, H, t, len.get(lengths), st);
    p.d_out = d_hs ? (const T *)d_hs->data + t * B * ld_dhs : nullptr, p.ld_out = ld_dhs;
    p.dh = dh, p.dc = dc;
    FUSED_TRY(cell_step<T>(fn, cell, true, &p));
    if (bf) {
      fused_bfloat16 *g = dg_r + t * B * GH;
      FUSED_TRY(bf16_rows(fn, g, GH, st + L.d_hh * H, ld, B, GH));
      if (apart) FUSED_TRY(bf16_rows(fn, dgi_r + t * B * GH, GH, st + L.d_ih * H, ld, B, GH));
      if (Dh < H) FUSED_TRY(heads_backward(fn, B, GH, H, Dh, g, GH, wh_r, Dh, dh));
      else FUSED_TRY(gemm_rows(fn, false, false, B, H, GH, g, GH, wh_r, H, T(1), dh, H));
    } else if (Dh < H) {
      FUSED_TRY(heads_backward(fn, B, GH, H, Dh, st + L.d_hh * H, ld, wh, ldw, dh));
    } else {
      FUSED_TRY(gemm_rows(fn, false, false, B, H, GH, st + L.d_hh * H, ld, wh, w_hh->strides[0],
                          T(1), dh, H));
    }
  }
  const T beta = accumulate ? T(1) : T(0);
  const T *d_ih = s + L.d_ih * H, *d_hh = s + L.d_hh * H;
  T *dx = (T *)d_xs->data, *dwi = (T *)d_w_ih->data, *dwh = (T *)d_w_hh->data;
  const int64_t ld_dwi = d_w_ih->strides[0], ld_dwh = d_w_hh->strides[0];
  if (bf) {
    FUSED_TRY(bf16_rows(fn, wi_r, In, wi, w_ih->strides[0], GH, In));
    FUSED_TRY(bf16_rows(fn, x_r, In, x, In, T_ * B, In));
    FUSED_TRY(bf16_rows(fn, h_r, H, s + L.h_prev * H, ld, T_ * B, H));
    FUSED_TRY(gemm_rows(fn, false, false, T_ * B, In, GH, dgi_r, GH, wi_r, In, T(0), dx, In));
    FUSED_TRY(gemm_rows(fn, true, false, GH, In, T_ * B, dgi_r, GH, x_r, In, beta, dwi, ld_dwi));
    if (Dh < H)
      FUSED_TRY(heads_weight_grad(fn, T_ * B, GH, H, Dh, dg_r, GH, h_r, H, beta, dwh, ld_dwh));
    else
      FUSED_TRY(gemm_rows(fn, true, false, GH, H, T_ * B, dg_r, GH, h_r, H, beta, dwh, ld_dwh));
  } else {
    FUSED_TRY(gemm_rows(fn, false, false, T_ * B, In, GH, d_ih, ld, wi, w_ih->strides[0], T(0),
                        dx, In));
    FUSED_TRY(gemm_rows(fn, true, false, GH, In, T_ * B, d_ih, ld, x, In, beta, dwi, ld_dwi));
    if (Dh < H)
      FUSED_TRY(heads_weight_grad(fn, T_ * B, GH, H, Dh, d_hh, ld, s + L.h_prev * H, ld, beta,
                                  dwh, ld_dwh));
    else
      FUSED_TRY(gemm_rows(fn, true, false, GH, H, T_ * B, d_hh, ld, s + L.h_prev * H, ld, beta,
                          dwh, ld_dwh));
  }
  if (L.d_x) {
    FUSED_LAUNCH(blocks_for(T_ * B * H), THREADS, 0, cuda_stream, add_rows_kernel<T>)(
        dx, H, s + L.d_x * H, ld, T_ * B, H);
    FUSED_TRY(cuda_check(fn, cudaGetLastError()));
  }
  FUSED_TRY(column_sums(fn, (T *)d_b_ih->data, d_ih, T_ * B, GH, ld, accumulate != 0));
  if (d_b_hh)
    FUSED_TRY(column_sums(fn, (T *)d_b_hh->data, d_hh, T_ * B, GH + L.params * H, ld,
                          accumulate != 0));
  return cuda_done(fn);
}

FUSED_KERNELS_RNN(FUSED_CUDA_INSTANTIATE_FLOATING)
