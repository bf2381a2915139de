/* The sequence engine on the CPU (fused_rnn_forward/backward in fused.h) for every cell of
 * c/maths/cell_layout.h, on the GEMM helpers of gemm.h and packed_gemm.h, each product on the
 * chooser's provider (c/cpu/gemm_choice.h).
 *
 * Forward: w_ih is transposed once (w_ihᵀ I×GH) so that the input projection is "NN", the fast
 * form at small shapes (docs/lltm.md), and w_hh is laid out once per call for the provider of
 * the per-step products (rnn_step_gemm: packed for packed_gemm.h, w_hhᵀ for a BLAS), which
 * then run with no repacking, forward and backward. The input projection of
 * all T steps is one GEMM written straight into saved's gate blocks (rows S·H apart); each
 * step is one GEMM from the h_prev block of its rows of saved into gh (B×GH) and one
 * pointwise pass, which writes the new state into the next step's h_prev block (h_n after
 * the last step). One step (T = 1, nn.LLTMCell) uses each weight once, so it uses them as they
 * lie: re-laying them out cost more than the step's products.
 * Backward, steps in the opposite order: one pointwise pass writing the gate gradients over
 * saved and the direct part of d_h_prev, then d_h_prev += d_gates_hh·w_hh; after the loop one
 * GEMM each for d_xs, d_w_ih (from xs) and d_w_hh (from the h_prev blocks), and the bias sums.
 * A padded step of a sequence (t ≥ its length) carries its state and has zero gradients, so
 * the GEMMs over all rows need no masking. */
#include <omp.h>

#include "../../maths/cells.h"

/* compute = FUSED_COMPUTE_BFLOAT16 (float32 only: the API refuses it elsewhere): every product
 * runs on operands rounded to bfloat16 (c/cpu/bf16.h), converted once per call for the weights
 * and the products over all steps, per step for h_prev and the recurrent gate gradients. On
 * the native path (bf16 storage) the products over all steps run on oneDNN and the per-step
 * ones on bf16.h's packed kernel; on the fallback the rounded values stay float32 and run on
 * the float32 path's kernels below, so both paths multiply the same numbers. The pointwise
 * passes, the states, saved and every gradient stay float32. */
#ifdef CPU_BF16
#include "../bf16.h"
#define rnn_bf16_native cpu_bf16_native
#else
/* float64 never gets FUSED_COMPUTE_BFLOAT16; these keep its instantiation compiling. */
typedef uint16_t bf16;
static inline bool rnn_bf16_native(void) { return false; }
static inline void cpu_bf16_round(scalar_t *d, int64_t ldd, const scalar_t *s, int64_t lds,
                                  int64_t rows, int64_t cols) {}
static inline void cpu_bf16_convert(bf16 *d, int64_t ldd, const scalar_t *s, int64_t lds,
                                    int64_t rows, int64_t cols) {}
static inline int64_t cpu_bf16_packed_size(int64_t k, int64_t n) { return 0; }
static inline void cpu_bf16_pack(bf16 *bp, const scalar_t *b, int64_t ldb, int64_t k, int64_t n,
                                 bool transposed) {}
static inline void cpu_bf16_packed_gemm(int64_t m, int64_t n, int64_t k, const bf16 *a,
                                        int64_t lda, const bf16 *bp, bool add, scalar_t *c,
                                        int64_t ldc) {}
static inline int cpu_bf16_gemm(const char *fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                                const bf16 *a, int64_t lda, const bf16 *b, int64_t ldb,
                                scalar_t beta, scalar_t *c, int64_t ldc) {
  return -1;
}
#endif

/* The row stride of rows of n rounded elements: bf16 rows keep an even stride, with the zero
 * that a packed product reads after an odd n. */
static inline int64_t rnn_bf16_ld(int64_t n, bool native) { return native ? n + (n & 1) : n; }

/* rows×cols of src (ld_src) rounded into dst (rows ld apart, rnn_bf16_ld), as bf16 on the native
 * path, else as float32. */
static inline void rnn_bf16_rows(void *dst, int64_t ld, const scalar_t *src, int64_t ld_src,
                                 int64_t rows, int64_t cols, bool native) {
  if (native) cpu_bf16_convert((bf16 *)dst, ld, src, ld_src, rows, cols);
  else cpu_bf16_round((scalar_t *)dst, ld, src, ld_src, rows, cols);
}

/* Row i of a buffer of rounded rows ld elements apart. */
static inline void *rnn_bf16_row(void *buf, int64_t i, int64_t ld, bool native) {
  return native ? (void *)((bf16 *)buf + i * ld) : (void *)((scalar_t *)buf + i * ld);
}

/* The arguments of one step's pass over the batch rows. */
typedef struct {
  int32_t cell;
  const fused_cell_def *def; /* a registered cell's steps (c/ops/cells.c) */
  cell_layout L;
  int64_t B, H, ld;           /* ld: saved's row stride, S·H */
  const int64_t *lengths;     /* NULL: every row runs every step */
  int64_t t;                  /* the step, 0-based in time */
  int64_t Dh;                 /* w_hh's columns: H, or a head's units (rnn_heads.h) */
} rnn_step;

/* The built-in cells' rows, compiled here for this file's vector capability: VEC_FOR over the
 * steps of c/maths/cells.h (one element a CUDA thread), a vector of elements at a time; a
 * registered cell's come from its extension through fused_cell_def. */
_Static_assert(FUSED_NUM_CELLS == 3, "a cell added to FUSED_CELLS: add its cases here");
static inline void rnn_row_forward(const rnn_step *p, scalar_t *s, const scalar_t *gh,
                                   const scalar_t *b_ih, const scalar_t *b_hh, scalar_t *c,
                                   scalar_t *h_next, scalar_t *out) {
  const int64_t H = p->H;
  switch (p->cell) {
    case FUSED_CELL_LLTM:
      VEC_FOR(H, j, m, rnn_lltm_forward(H, j, m, s, gh, b_ih, b_hh, c, h_next, out);)
      break;
    case FUSED_CELL_LSTM:
      VEC_FOR(H, j, m, rnn_lstm_forward(H, j, m, s, gh, b_ih, b_hh, c, h_next, out);)
      break;
    case FUSED_CELL_GRU:
      VEC_FOR(H, j, m, rnn_gru_forward(H, j, m, s, gh, b_ih, b_hh, c, h_next, out);)
      break;
    default: p->def->CELL_FORWARD(H, s, gh, b_ih, b_hh, c, h_next, out);
  }
}

static inline void rnn_row_backward(const rnn_step *p, scalar_t *s, const scalar_t *d_out,
                                    scalar_t *dh, scalar_t *dc) {
  const int64_t H = p->H;
  switch (p->cell) {
    case FUSED_CELL_LLTM: VEC_FOR(H, j, m, rnn_lltm_backward(H, j, m, s, d_out, dh, dc);) break;
    case FUSED_CELL_LSTM: VEC_FOR(H, j, m, rnn_lstm_backward(H, j, m, s, d_out, dh, dc);) break;
    case FUSED_CELL_GRU: VEC_FOR(H, j, m, rnn_gru_backward(H, j, m, s, d_out, dh, dc);) break;
    default: p->def->CELL_BACKWARD(H, s, d_out, dh, dc);
  }
}

static inline bool rnn_active(const rnn_step *p, int64_t r) {
  return !p->lengths || p->t < p->lengths[r];
}

/* Forward over row r, g its recurrent projection: a padded row carries h and c and outputs
 * zero. */
static inline void rnn_forward_row(const rnn_step *p, int64_t r, scalar_t *st, const scalar_t *g,
                                   const scalar_t *b_ih, const scalar_t *b_hh, scalar_t *c,
                                   scalar_t *h_next, int64_t ld_next, scalar_t *out,
                                   int64_t ld_out) {
  const int64_t H = p->H;
  scalar_t *s = st + r * p->ld, *hn = h_next + r * ld_next, *o = out + r * ld_out;
  scalar_t *cr = c ? c + r * p->L.has_c * H : NULL;
  if (rnn_active(p, r)) {
    rnn_row_forward(p, s, g, b_ih, b_hh, cr, hn, o);
  } else {
    memcpy(hn, s + p->L.h_prev * H, (size_t)H * sizeof(scalar_t));
    memset(o, 0, (size_t)(p->L.outputs * H) * sizeof(scalar_t));
  }
}

/* Backward over row r: a padded row has zero gate and parameter gradients and passes dh and
 * dc on. */
static inline void rnn_backward_row(const rnn_step *p, int64_t r, scalar_t *st,
                                    const scalar_t *d_out, int64_t ld_out, scalar_t *dh,
                                    scalar_t *dc) {
  const int64_t H = p->H, GH = p->L.gates * H;
  scalar_t *s = st + r * p->ld;
  if (rnn_active(p, r)) {
    rnn_row_backward(p, s, d_out ? d_out + r * ld_out : NULL, dh + r * H,
                     dc ? dc + r * p->L.has_c * H : NULL);
  } else {
    memset(s + p->L.d_ih * H, 0, (size_t)GH * sizeof(scalar_t));
    memset(s + p->L.d_hh * H, 0, (size_t)(GH + p->L.params * H) * sizeof(scalar_t));
  }
}

/* d[0..n) += q[0..n). */
static inline void rnn_add(scalar_t *d, const scalar_t *q, int64_t n) {
  VEC_FOR(n, j, m, vstore(d + j, vload(d + j, m) + vload(q + j, m), m);)
}

/* The bias gradients are the column sums of the gate gradients over every row and step; each
 * thread adds its rows' into d_b (GH: at d_ih's blocks; GH more at d_hh's where those are
 * apart, with the per-unit parameters' after them) while the step's gradients are still in
 * its cache. Summed after the loop, over the whole saved, they took 4% of an LSTM's training
 * step ((16, 32, 128), one thread). */
static void rnn_bias_rows(const rnn_step *p, int64_t r0, int64_t r1, const scalar_t *st,
                          bool hh_apart, scalar_t *d_b) {
  const int64_t H = p->H, GH = p->L.gates * H, PH = p->L.params * H;
  for (int64_t r = r0; r < r1; r++) {
    if (!rnn_active(p, r)) continue;
    const scalar_t *row = st + r * p->ld;
    rnn_add(d_b, row + p->L.d_ih * H, GH);
    if (hh_apart) rnn_add(d_b + GH, row + p->L.d_hh * H, GH + PH);
  }
}

/* d_b (+)= the threads' sums, n elements each, parts apart, in thread order. */
static void rnn_bias_sum(scalar_t *d_b, const scalar_t *sums, int threads, int64_t n,
                         int64_t apart, int32_t accumulate) {
  for (int64_t j = 0; j < n; j++) {
    scalar_t v = accumulate ? d_b[j] : 0;
    for (int k = 0; k < threads; k++) v += sums[k * apart + j];
    d_b[j] = v;
  }
}

/* Threads: the batch rows are split over OpenMP threads for the whole time loop (rows never
 * meet in the recurrence, so no barrier is needed): each thread runs the per-step GEMM and
 * pass of its rows, and OpenBLAS (its OpenMP build, see the Makefile) runs on one thread
 * inside the region. With fewer than RNN_MIN_ROWS rows a thread, one thread runs the loop and
 * the per-step GEMMs may use BLAS's threads; the GEMMs over all steps use them too. */
#define RNN_MIN_ROWS 4

static int rnn_threads(int64_t B) {
  const int64_t most = B / RNN_MIN_ROWS, n = omp_in_parallel() ? 1 : omp_get_max_threads();
  return (int)(most < 1 ? 1 : most < n ? most : n);
}

/* This thread's share [*r0, *r1) of B rows. */
static void rnn_rows(int64_t B, int64_t *r0, int64_t *r1) {
  const int64_t k = omp_get_thread_num(), n = omp_get_num_threads();
  *r0 = B * k / n;
  *r1 = B * (k + 1) / n;
}

/* How many rows of [r0, r1) run step p->t. */
static int64_t rnn_active_count(const rnn_step *p, int64_t r0, int64_t r1) {
  int64_t n = 0;
  for (int64_t r = r0; r < r1; r++) n += rnn_active(p, r);
  return n;
}

static void copy_rows(scalar_t *dst, int64_t ld_dst, const scalar_t *src, int64_t ld_src,
                      int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; r++)
    memcpy(dst + r * ld_dst, src + r * ld_src, (size_t)cols * sizeof(scalar_t));
}

/* The per-step recurrent product of a sequence call, c (m×n) = a·b (+ c) with b = w_hhᵀ
 * (forward, n = GH, k = H) or w_hh (backward, n = H, k = GH), on the provider the chooser
 * picks for a thread's rows (a shared b: the packed kernel is a candidate). b is laid out once
 * per call in buf for it: packed for the packed kernel, a row-major k×n copy ("NN", the fast
 * form at a few rows) for OpenBLAS and oneDNN. */
typedef struct {
  cpu_gemm_provider p;
  int64_t n, k, size; /* size: the elements of b's layout in buf */
  scalar_t *b;
} rnn_step_gemm;

/* g for w (n×k with transposed, else k×n; rows ldw apart), the products of `rows` rows
 * each on `threads` threads; buf has packed_gemm_size(k, n) elements, at least k·n. */
static void rnn_step_gemm_prepare(rnn_step_gemm *g, int64_t rows, int threads, const scalar_t *w,
                                  int64_t ldw, int64_t k, int64_t n, bool transposed,
                                  scalar_t *buf) {
  g->p = cpu_gemm_choose(SCALAR_IS_FLOAT64, false, false, rows, n, k, threads,
                         &packed_gemm_kernel);
  g->n = n, g->k = k, g->b = buf;
  if (g->p == CPU_GEMM_PACKED) {
    g->size = packed_gemm_size(k, n);
    packed_gemm_pack(buf, w, ldw, k, n, transposed);
    return;
  }
  g->size = k * n;
  if (transposed) cpu_transpose(buf, n, w, ldw, n, k);
  else copy_rows(buf, n, w, ldw, k, n);
}

static void rnn_step_gemm_run(const rnn_step_gemm *g, int64_t m, const scalar_t *a, int64_t lda,
                              bool add, scalar_t *c, int64_t ldc) {
  if (m == 0) return;
  if (g->p != CPU_GEMM_PACKED) {
    cpu_blas_gemm(g->p, false, false, m, g->n, g->k, 1, a, lda, g->b, g->n, add ? 1 : 0, c, ldc);
    return;
  }
  packed_gemm(m, g->n, g->k, a, lda, 1, g->b, add, c, ldc);
  cpu_gemm_count_packed();
}

/* The threads a step's product runs on where the loop has `threads`: one each inside a
 * region, the library's where the loop is on one. */
static int rnn_step_threads(int threads) { return threads > 1 ? 1 : cpu_gemm_threads(); }

/* The recurrent products of step p->t for rows [r0, r1) of st (the step's rows of saved):
 * gh's rows, in order, get h_prev·w_hhᵀ of the rows that run the step. In a ragged batch those
 * rows are gathered into buf first, so that the product skips the padded ones. */
static void rnn_forward_product(const rnn_step *p, int64_t r0, int64_t r1, const scalar_t *st,
                                const rnn_step_gemm *g, scalar_t *buf, scalar_t *gh) {
  const int64_t H = p->H, GH = p->L.gates * H, ld = p->ld, n = rnn_active_count(p, r0, r1);
  const scalar_t *h_prev = st + p->L.h_prev * H;
  if (n == r1 - r0) {
    rnn_step_gemm_run(g, n, h_prev + r0 * ld, ld, false, gh, GH);
    return;
  }
  for (int64_t r = r0, i = 0; r < r1; r++)
    if (rnn_active(p, r)) memcpy(buf + i++ * H, h_prev + r * ld, (size_t)H * sizeof(scalar_t));
  rnn_step_gemm_run(g, n, buf, H, false, gh, GH);
}

/* rnn_forward_product on rounded operands: the rows that run the step rounded into buf (rows
 * rnn_bf16_ld(H) apart, always gathered), then the product of the path: the bf16 packed
 * kernel over w_hh_packed on the native path, g's on the fallback. */
static void rnn_forward_product_bf16(const rnn_step *p, int64_t r0, int64_t r1,
                                     const scalar_t *st, const void *w_hh_packed,
                                     const rnn_step_gemm *g, bool native, void *buf,
                                     scalar_t *gh) {
  const int64_t H = p->H, GH = p->L.gates * H, ld = p->ld, ldb = rnn_bf16_ld(H, native);
  const scalar_t *h_prev = st + p->L.h_prev * H;
  int64_t n = 0;
  for (int64_t r = r0; r < r1; r++)
    if (rnn_active(p, r))
      rnn_bf16_rows(rnn_bf16_row(buf, n++, ldb, native), ldb, h_prev + r * ld, ld, 1, H, native);
  if (native)
    cpu_bf16_packed_gemm(n, GH, H, (const bf16 *)buf, ldb, (const bf16 *)w_hh_packed, false, gh,
                         GH);
  else
    rnn_step_gemm_run(g, n, (const scalar_t *)buf, ldb, false, gh, GH);
}

/* dh += d_gates_hh·w_hh for rows [r0, r1) of step p->t; a padded row's d_gates_hh are zero,
 * so a ragged batch gathers the other rows into buf and adds their products from prod. */
static void rnn_backward_product(const rnn_step *p, int64_t r0, int64_t r1, const scalar_t *st,
                                 const rnn_step_gemm *g, scalar_t *buf, scalar_t *prod,
                                 scalar_t *dh) {
  const int64_t H = p->H, GH = p->L.gates * H, ld = p->ld, n = rnn_active_count(p, r0, r1);
  const scalar_t *d_hh = st + p->L.d_hh * H;
  if (n == r1 - r0) {
    rnn_step_gemm_run(g, n, d_hh + r0 * ld, ld, true, dh + r0 * H, H);
    return;
  }
  for (int64_t r = r0, i = 0; r < r1; r++)
    if (rnn_active(p, r)) memcpy(buf + i++ * GH, d_hh + r * ld, (size_t)GH * sizeof(scalar_t));
  rnn_step_gemm_run(g, n, buf, GH, false, prod, H);
  for (int64_t r = r0, i = 0; r < r1; r++)
    if (rnn_active(p, r)) rnn_add(dh + r * H, prod + i++ * H, H);
}

/* C = op(A)·op(B) + beta·C for the products over all steps, the rows of C split over the
 * OpenMP threads, each a call on one thread (the chooser's provider). OpenBLAS's own threads
 * split these shapes badly: at (B, I, H) = (16, 32, 128), LLTM, two threads (AMD EPYC, AVX2, float32), the
 * input projection (1600×384×32) took 1.77 ms against 1.39 on one thread, and d_w_hh
 * (384×128 over 1600) 3.39 against 4.74. A product below PG_PARALLEL_FLOPS multiply-adds (one
 * step's weight gradients at (16, 32, 128)) stays on one thread, as packed_gemm's do: a region
 * of two made the cell's backward 1.4x slower with the other core busy. */
#define RNN_GEMM_MIN_ROWS 32

/* The threads a product over all steps with m rows of C is split over. */
static int rnn_gemm_threads(int64_t m, int64_t n, int64_t k) {
  const int64_t most = m * n * k < PG_PARALLEL_FLOPS ? 1 : m / RNN_GEMM_MIN_ROWS;
  const int64_t all = omp_in_parallel() ? 1 : omp_get_max_threads();
  return (int)(most < 1 ? 1 : most < all ? most : all);
}

/* The provider of such a product, chosen for a thread's block on one thread (the chooser
 * measures outside regions), or for the whole on the library's threads where it is not split;
 * packed: the packed kernel as a candidate, or NULL. */
static cpu_gemm_provider rnn_gemm_choose(bool ta, int64_t m, int64_t n, int64_t k, int threads,
                                         const cpu_gemm_packed *packed) {
  return cpu_gemm_choose(SCALAR_IS_FLOAT64, ta, false, m / threads, n, k,
                         threads > 1 ? 1 : cpu_gemm_threads(), packed);
}

/* The product on BLAS provider p, its rows split over `threads`. */
static void rnn_gemm_on(cpu_gemm_provider p, int threads, bool ta, int64_t m, int64_t n,
                        int64_t k, const scalar_t *a, int64_t lda, const scalar_t *b,
                        int64_t ldb, scalar_t beta, scalar_t *c, int64_t ldc) {
  if (threads <= 1) {
    cpu_blas_gemm(p, ta, false, m, n, k, 1, a, lda, b, ldb, beta, c, ldc);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    int64_t i0, i1;
    rnn_rows(m, &i0, &i1);
    cpu_blas_gemm(p, ta, false, i1 - i0, n, k, 1, ta ? a + i0 : a + i0 * lda, lda, b, ldb, beta,
                  c + i0 * ldc, ldc);
  }
}

static void rnn_gemm(enum CBLAS_TRANSPOSE ta, int64_t m, int64_t n, int64_t k, const scalar_t *a,
                     int64_t lda, const scalar_t *b, int64_t ldb, scalar_t beta, scalar_t *c,
                     int64_t ldc) {
  const int threads = rnn_gemm_threads(m, n, k);
  const bool at = ta == CblasTrans;
  rnn_gemm_on(rnn_gemm_choose(at, m, n, k, threads, NULL), threads, at, m, n, k, a, lda, b, ldb,
              beta, c, ldc);
}

static int rnn_weight_grad(int64_t k, int64_t GH, int64_t n, const scalar_t *d_g, int64_t ld_g,
                           const scalar_t *x, int64_t ldx, int32_t accumulate, scalar_t *d_w,
                           int64_t ldw);
#include "rnn_heads.h"

/* A step that reads x (In = H): xs's n rows into block x of saved's, as they are (under
 * compute bfloat16 too: only the products round, and x meets the step's pointwise maths), and
 * block d_x zeroed, so that a padded row, whose step never runs, adds nothing to d_xs. */
static void rnn_x_rows(const cell_layout *L, int64_t n, int64_t H, int64_t ld, const scalar_t *xs,
                       scalar_t *s) {
  copy_rows(s + L->x * H, ld, xs, H, n, H);
  for (int64_t i = 0; i < n; i++) memset(s + i * ld + L->d_x * H, 0, (size_t)H * sizeof(scalar_t));
}

/* d_xs (n rows of H) += the steps' direct gradients at x, block d_x of saved's rows. */
static void rnn_add_d_x(const cell_layout *L, int64_t n, int64_t H, int64_t ld,
                        const scalar_t *s, fused_tensor *d_xs) {
  scalar_t *dx = (scalar_t *)d_xs->data;
  for (int64_t i = 0; i < n; i++) rnn_add(dx + i * H, s + i * ld + L->d_x * H, H);
}

static int rnn_forward(int32_t cell, fused_tensor *hs, fused_tensor *h_n, fused_tensor *c_n,
                       fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                       const fused_tensor *c0, const fused_tensor *w_ih, const fused_tensor *w_hh,
                       const fused_tensor *b_ih, const fused_tensor *b_hh,
                       const int64_t *lengths, int32_t reverse, int32_t compute) {
  const cell_layout L = cell_layout_of(cell);
  const int64_t T = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = h0->sizes[1];
  const int64_t GH = L.gates * H, ld = L.saved * H, ld_hs = hs->strides[1];
  const int64_t Dh = w_hh->sizes[1], ldw = w_hh->strides[0];
  const bool bf = compute == FUSED_COMPUTE_BFLOAT16, native = bf && rnn_bf16_native();
  const bool heads = Dh < H;
  /* One step (nn.LLTMCell runs T = 1) uses each weight once: both products are then
   * cpu_gemm_nt's, with no copy of a weight, and the region only runs the pointwise pass. */
  const bool once = T == 1 && !bf && !heads;
  const int threads = once && B * H <= PARALLEL_MIN_ELEMENTS ? 1 : rnn_threads(B);
  /* Scratch in float32 elements: gh, one step's h_prev rows (rounded: H + 1 apart), the relaid
   * weights (rounded on the fallback; bf16, half the size, on the native path), bf's xs. */
  const int64_t packed = heads ? rnn_heads_packed_size(GH, Dh) : packed_gemm_size(H, GH);
  const int64_t packed_bf = heads ? packed : cpu_bf16_packed_size(H, GH) / 2 + 1;
  const int64_t relaid = once ? B * ((In > H ? In : H) + GH)
                              : In * GH + (packed > packed_bf ? packed : packed_bf);
  scalar_t *gh = cpu_scratch("rnn_forward", B * GH + B * (H + 1) + relaid + (bf ? T * B * In : 0));
  if (!gh) return -1;
  scalar_t *buf = gh + B * GH, *wt = buf + B * (H + 1), *w_hh_packed = wt + In * GH;
  scalar_t *xs_r = w_hh_packed + (packed > packed_bf ? packed : packed_bf);
  scalar_t *s = (scalar_t *)saved->data;
  scalar_t *c = c_n ? (scalar_t *)c_n->data : NULL;
  const scalar_t *x = (const scalar_t *)xs->data, *wi = (const scalar_t *)w_ih->data;
  const scalar_t *wh = (const scalar_t *)w_hh->data;
  rnn_step_gemm g_hh;
  if (once) {
    cpu_gemm_nt(B, GH, In, x, In, wi, w_ih->strides[0], s, ld, wt);
    cpu_gemm_nt(B, GH, H, (const scalar_t *)h0->data, H, wh, w_hh->strides[0], gh, GH, wt);
  } else if (native) {
    cpu_bf16_convert((bf16 *)wt, In, wi, w_ih->strides[0], GH, In);
    if (heads) rnn_heads_pack(w_hh_packed, wh, ldw, GH, Dh, true, true);
    else cpu_bf16_pack((bf16 *)w_hh_packed, wh, w_hh->strides[0], H, GH, true);
    cpu_bf16_convert((bf16 *)xs_r, In, x, In, T * B, In);
    if (cpu_bf16_gemm("rnn_forward", false, true, T * B, GH, In, (const bf16 *)xs_r, In,
                      (const bf16 *)wt, In, 0, s, ld)) {
      free(gh);
      return -1;
    }
  } else {
    cpu_transpose(wt, GH, wi, w_ih->strides[0], GH, In);
    if (heads) rnn_heads_pack(w_hh_packed, wh, ldw, GH, Dh, true, false);
    else rnn_step_gemm_prepare(&g_hh, (B + threads - 1) / threads, rnn_step_threads(threads), wh,
                               w_hh->strides[0], H, GH, true, w_hh_packed);
    if (bf) {
      /* Rounding commutes with relaying out: the relaid weights are rounded in place. */
      cpu_bf16_round(wt, GH, wt, GH, In, GH);
      if (heads) cpu_bf16_round(w_hh_packed, packed, w_hh_packed, packed, 1, packed);
      else cpu_bf16_round(g_hh.b, g_hh.size, g_hh.b, g_hh.size, 1, g_hh.size);
      cpu_bf16_round(xs_r, In, x, In, T * B, In);
      x = xs_r;
    }
    rnn_gemm(CblasNoTrans, T * B, GH, In, x, In, wt, GH, 0, s, ld);
  }
  if (L.x) rnn_x_rows(&L, T * B, H, ld, (const scalar_t *)xs->data, s);
  const int64_t first = reverse ? T - 1 : 0, step = reverse ? -1 : 1;
  copy_rows(s + first * B * ld + L.h_prev * H, ld, (const scalar_t *)h0->data, H, B, H);
  if (c && c != (scalar_t *)c0->data)
    memcpy(c, c0->data, (size_t)(B * L.has_c * H) * sizeof(scalar_t));
#pragma omp parallel num_threads(threads)
  {
    rnn_step p = {cell, fused_rnn_cell(cell), L, B, H, ld, lengths, 0, Dh};
    int64_t r0, r1;
    rnn_rows(B, &r0, &r1);
    for (int64_t k = 0, t = first; k < T && r1 > r0; k++, t += step) {
      scalar_t *st = s + t * B * ld;
      const bool last = k == T - 1;
      p.t = t;
      if (bf && heads)
        rnn_heads_forward_product_bf16(&p, r0, r1, st, w_hh_packed, native, buf + r0 * (H + 1),
                                       gh + r0 * GH);
      else if (bf)
        rnn_forward_product_bf16(&p, r0, r1, st, w_hh_packed, &g_hh, native, buf + r0 * (H + 1),
                                 gh + r0 * GH);
      else if (heads)
        rnn_heads_forward_product(&p, r0, r1, st, w_hh_packed, buf + r0 * H, gh + r0 * GH);
      else if (!once)
        rnn_forward_product(&p, r0, r1, st, &g_hh, buf + r0 * H, gh + r0 * GH);
      for (int64_t r = r0, i = r0; r < r1; r++)
        rnn_forward_row(&p, r, st, gh + (rnn_active(&p, r) ? i++ : i) * GH,
                        (const scalar_t *)b_ih->data,
                        b_hh ? (const scalar_t *)b_hh->data : NULL, c,
                        last ? (scalar_t *)h_n->data : s + (t + step) * B * ld + L.h_prev * H,
                        last ? H : ld, (scalar_t *)hs->data + t * B * ld_hs, ld_hs);
    }
  }
  free(gh);
  return 0;
}

/* d_w (GH×n, ldw) = d_gatesᵀ·x over k rows (d_gates' rows ld_g apart, x's ldx), or += with
 * accumulate, as rnn_gemm runs its products (d_w's rows split over the threads) but with the
 * packed kernel a candidate: x packed once, the threads' blocks reading it. On an AVX2 EPYC
 * OpenBLAS ran such a product with a small d_w and a long k at a third of its rate ((GH, n, k)
 * = (192, 64, 6400), the default training run's d_w_hh, 11 GFLOP/s, packed 28), yet was the
 * faster from a d_w of (1536, 256) (35 against 28), below a panel's width and over a short k:
 * so the chooser measures it (a "TP" class, the packing timed with each product). */
static int rnn_weight_grad(int64_t k, int64_t GH, int64_t n, const scalar_t *d_g, int64_t ld_g,
                           const scalar_t *x, int64_t ldx, int32_t accumulate, scalar_t *d_w,
                           int64_t ldw) {
  const int threads = rnn_gemm_threads(GH, n, k);
  const cpu_gemm_provider p = rnn_gemm_choose(true, GH, n, k, threads, &packed_gemm_kernel);
  if (p != CPU_GEMM_PACKED) {
    rnn_gemm_on(p, threads, true, GH, n, k, d_g, ld_g, x, ldx, accumulate ? 1 : 0, d_w, ldw);
    return 0;
  }
  scalar_t *x_packed = cpu_scratch("rnn_backward", packed_gemm_size(k, n));
  if (!x_packed) return -1;
  packed_gemm_pack(x_packed, x, ldx, k, n, false);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int64_t i0, i1;
    rnn_rows(GH, &i0, &i1);
    packed_gemm(i1 - i0, n, k, d_g + i0, 1, ld_g, x_packed, accumulate, d_w + i0 * ldw, ldw);
  }
  cpu_gemm_count_packed();
  free(x_packed);
  return 0;
}

/* The native path's products after backward's loop: d_g holds every step's bf16 recurrent
 * gate gradients (rows ldg apart), d_gi the input ones (d_g itself where the cell shares their
 * blocks); xs, h_prev and w_ih are converted here. */
static int rnn_backward_products_bf16(int64_t TB, int64_t GH, int64_t In, int64_t H, int64_t Dh,
                                      const bf16 *d_gi, const bf16 *d_g, int64_t ldg,
                                      const fused_tensor *xs, const scalar_t *h_prev, int64_t ld,
                                      const fused_tensor *w_ih, int32_t accumulate,
                                      fused_tensor *d_xs, fused_tensor *d_w_ih,
                                      fused_tensor *d_w_hh) {
  const char *fn = "rnn_backward";
  bf16 *w = malloc((size_t)(GH * In + TB * (In + H)) * sizeof(bf16));
  if (!w) return fused_error("%s: out of memory for bfloat16 operands", fn);
  bf16 *x_r = w + GH * In, *h_r = x_r + TB * In;
  cpu_bf16_convert(w, In, (const scalar_t *)w_ih->data, w_ih->strides[0], GH, In);
  cpu_bf16_convert(x_r, In, (const scalar_t *)xs->data, In, TB, In);
  cpu_bf16_convert(h_r, H, h_prev, ld, TB, H);
  const int status =
      cpu_bf16_gemm(fn, false, false, TB, In, GH, d_gi, ldg, w, In, 0, (scalar_t *)d_xs->data,
                    In) ||
      cpu_bf16_gemm(fn, true, false, GH, In, TB, d_gi, ldg, x_r, In, accumulate,
                    (scalar_t *)d_w_ih->data, d_w_ih->strides[0]) ||
      (Dh < H ? rnn_heads_weight_grad_bf16(fn, TB, GH, H, Dh, d_g, ldg, h_r, accumulate,
                                           (scalar_t *)d_w_hh->data, d_w_hh->strides[0])
              : cpu_bf16_gemm(fn, true, false, GH, H, TB, d_g, ldg, h_r, H, accumulate,
                              (scalar_t *)d_w_hh->data, d_w_hh->strides[0]));
  free(w);
  return status ? -1 : 0;
}

/* The fallback's rounding of step p->t's rows [r0, r1) once the pass has run and the bias sums
 * have read them: the gate gradients and h_prev are only multiplied from then on, so they are
 * rounded where they lie in saved (which backward overwrites anyway), and the float32 path's
 * products then read them. */
static void rnn_round_step(const rnn_step *p, int64_t r0, int64_t r1, scalar_t *st) {
  const int64_t H = p->H, GH = p->L.gates * H, ld = p->ld;
  scalar_t *rows = st + r0 * ld;
  cpu_bf16_round(rows + p->L.d_hh * H, ld, rows + p->L.d_hh * H, ld, r1 - r0, GH);
  if (p->L.d_ih != p->L.d_hh)
    cpu_bf16_round(rows + p->L.d_ih * H, ld, rows + p->L.d_ih * H, ld, r1 - r0, GH);
  cpu_bf16_round(rows + p->L.h_prev * H, ld, rows + p->L.h_prev * H, ld, r1 - r0, H);
}

/* d_h0 (and d_c0) carry the gradients at the state from d_hn (d_cn) back to the first step. */
static int rnn_backward(int32_t cell, fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                        fused_tensor *d_w_ih, fused_tensor *d_w_hh, fused_tensor *d_b_ih,
                        fused_tensor *d_b_hh, const fused_tensor *d_hs, const fused_tensor *d_hn,
                        const fused_tensor *d_cn, fused_tensor *saved, const fused_tensor *xs,
                        const fused_tensor *w_ih, const fused_tensor *w_hh,
                        const int64_t *lengths, int32_t reverse, int32_t accumulate,
                        int32_t compute) {
  const cell_layout L = cell_layout_of(cell);
  const int64_t T = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = d_h0->sizes[1];
  const int64_t GH = L.gates * H, ld = L.saved * H, ld_dhs = d_hs ? d_hs->strides[1] : 0;
  const int64_t Dh = w_hh->sizes[1], ldw = w_hh->strides[0];
  const bool heads = Dh < H;
  const size_t state = (size_t)(B * H) * sizeof(scalar_t), c_state = state * L.has_c;
  const bool bf = compute == FUSED_COMPUTE_BFLOAT16, native = bf && rnn_bf16_native();
  scalar_t *s = (scalar_t *)saved->data, *dh = (scalar_t *)d_h0->data;
  scalar_t *dc = d_c0 ? (scalar_t *)d_c0->data : NULL;
  if (!d_hn) memset(dh, 0, state);
  else if (dh != (scalar_t *)d_hn->data) memcpy(dh, d_hn->data, state);
  if (dc && !d_cn) memset(dc, 0, c_state);
  else if (dc && dc != (scalar_t *)d_cn->data) memcpy(dc, d_cn->data, c_state);
  /* One step's recurrent product runs on BLAS after the loop, on w_hh as it lies. */
  const bool once = T == 1 && !bf && !heads;
  const int threads = once && B * H <= PARALLEL_MIN_ELEMENTS ? 1 : rnn_threads(B);
  /* a cell's per-unit parameters' gradients are summed with its recurrent biases' */
  const bool hh_apart = d_b_hh && (L.d_hh != L.d_ih || L.params), blocks_apart = L.d_hh != L.d_ih;
  const int64_t hh_n = GH + L.params * H, sums_n = GH + (hh_apart ? hh_n : 0);
  const int64_t packed = heads ? rnn_heads_packed_size(GH, Dh)
                         : native ? cpu_bf16_packed_size(GH, H) / 2 + 1
                         : once ? 0 : packed_gemm_size(GH, H);
  /* The native path: every step's bf16 recurrent gate gradients (rows ldg apart), and the
   * input ones where the cell keeps them apart (the GRU), in float32 elements. */
  const int64_t ldg = rnn_bf16_ld(GH, native);
  const int64_t converted = native ? ((blocks_apart ? 2 : 1) * T * B * ldg + 1) / 2 : 0;
  scalar_t *buf = cpu_scratch("rnn_backward",
                              B * (GH + H) + packed + threads * sums_n + converted);
  if (!buf) return -1;
  scalar_t *prod = buf + B * GH, *w_hh_packed = prod + B * H, *sums = w_hh_packed + packed;
  bf16 *d_g = (bf16 *)(sums + threads * sums_n), *d_gi = d_g + (blocks_apart ? T * B * ldg : 0);
  const scalar_t *wh = (const scalar_t *)w_hh->data;
  rnn_step_gemm g_hh;
  if (heads) {
    rnn_heads_pack(w_hh_packed, wh, ldw, GH, Dh, false, native);
    if (bf && !native) cpu_bf16_round(w_hh_packed, packed, w_hh_packed, packed, 1, packed);
  } else if (native) {
    cpu_bf16_pack((bf16 *)w_hh_packed, wh, w_hh->strides[0], GH, H, false);
  } else if (!once) {
    rnn_step_gemm_prepare(&g_hh, (B + threads - 1) / threads, rnn_step_threads(threads), wh,
                          w_hh->strides[0], GH, H, false, w_hh_packed);
    if (bf) cpu_bf16_round(g_hh.b, g_hh.size, g_hh.b, g_hh.size, 1, g_hh.size);
  }
  memset(sums, 0, (size_t)(threads * sums_n) * sizeof(scalar_t));
#pragma omp parallel num_threads(threads)
  {
    rnn_step p = {cell, fused_rnn_cell(cell), L, B, H, ld, lengths, 0, Dh};
    int64_t r0, r1;
    rnn_rows(B, &r0, &r1);
    scalar_t *d_b = sums + omp_get_thread_num() * sums_n;
    for (int64_t k = 0, t = reverse ? 0 : T - 1; k < T && r1 > r0; k++, t += reverse ? 1 : -1) {
      scalar_t *st = s + t * B * ld;
      p.t = t;
      for (int64_t r = r0; r < r1; r++)
        rnn_backward_row(&p, r, st, d_hs ? (const scalar_t *)d_hs->data + t * B * ld_dhs : NULL,
                         ld_dhs, dh, dc);
      rnn_bias_rows(&p, r0, r1, st, hh_apart, d_b);
      if (native) {
        /* A padded row's gate gradients are zero: no gathering. */
        bf16 *g = d_g + (t * B + r0) * ldg;
        cpu_bf16_convert(g, ldg, st + r0 * ld + L.d_hh * H, ld, r1 - r0, GH);
        if (blocks_apart)
          cpu_bf16_convert(d_gi + (t * B + r0) * ldg, ldg, st + r0 * ld + L.d_ih * H, ld,
                           r1 - r0, GH);
        if (heads)
          rnn_heads_backward_product_bf16(&p, r0, r1, g, ldg, w_hh_packed,
                                          (bf16 *)(buf + r0 * GH), dh);
        else
          cpu_bf16_packed_gemm(r1 - r0, H, GH, g, ldg, (const bf16 *)w_hh_packed, true,
                               dh + r0 * H, H);
        continue;
      }
      if (bf) rnn_round_step(&p, r0, r1, st);
      if (heads)
        rnn_heads_backward_product(&p, r0, r1, st, w_hh_packed, buf + r0 * GH, prod + r0 * H,
                                   dh);
      else if (!once)
        rnn_backward_product(&p, r0, r1, st, &g_hh, buf + r0 * GH, prod + r0 * H, dh);
    }
  }
  const scalar_t *d_ih = s + L.d_ih * H, *d_hh = s + L.d_hh * H;
  if (once)
    cpu_gemm(CblasNoTrans, CblasNoTrans, B, H, GH, d_hh, ld, wh, w_hh->strides[0], 1, dh, H);
  rnn_bias_sum((scalar_t *)d_b_ih->data, sums, threads, GH, sums_n, accumulate);
  if (d_b_hh)
    rnn_bias_sum((scalar_t *)d_b_hh->data, hh_apart ? sums + GH : sums, threads, hh_n, sums_n,
                 accumulate);
  if (native) {
    const int status = rnn_backward_products_bf16(T * B, GH, In, H, Dh, d_gi, d_g, ldg, xs,
                                                  s + L.h_prev * H, ld, w_ih, accumulate, d_xs,
                                                  d_w_ih, d_w_hh);
    free(buf);
    if (!status && L.d_x) rnn_add_d_x(&L, T * B, H, ld, s, d_xs);
    return status;
  }
  free(buf);
  /* The fallback rounds xs and w_ih into copies; saved's blocks were rounded in the loop. */
  const scalar_t *x = (const scalar_t *)xs->data, *wi = (const scalar_t *)w_ih->data;
  int64_t ldwi = w_ih->strides[0];
  scalar_t *copies = NULL;
  if (bf) {
    if (!(copies = cpu_scratch("rnn_backward", T * B * In + GH * In))) return -1;
    cpu_bf16_round(copies, In, x, In, T * B, In);
    cpu_bf16_round(copies + T * B * In, In, wi, ldwi, GH, In);
    x = copies, wi = copies + T * B * In, ldwi = In;
  }
  rnn_gemm(CblasNoTrans, T * B, In, GH, d_ih, ld, wi, ldwi, 0, (scalar_t *)d_xs->data, In);
  if (L.d_x) rnn_add_d_x(&L, T * B, H, ld, s, d_xs);
  const int status =
      rnn_weight_grad(T * B, GH, In, d_ih, ld, x, In, accumulate, (scalar_t *)d_w_ih->data,
                      d_w_ih->strides[0]) ||
      (heads ? rnn_heads_weight_grad(T * B, GH, H, Dh, d_hh, ld, s + L.h_prev * H, ld,
                                     accumulate, (scalar_t *)d_w_hh->data, d_w_hh->strides[0])
             : rnn_weight_grad(T * B, GH, H, d_hh, ld, s + L.h_prev * H, ld, accumulate,
                               (scalar_t *)d_w_hh->data, d_w_hh->strides[0]));
  free(copies);
  return status ? -1 : 0;
}
