/* The LLTM over a sequence on the CPU (fused_lltm_seq_forward/backward in fused.h), built on
 * the cell's pointwise passes (lltm.h).
 *
 * Forward: W is transposed once (Wᵀ, (H+I)×3H) so that every product is "NN", the fast form
 * at small shapes; the input half of the gates for all T steps is one GEMM (xs·Wₓᵀ), written
 * straight into saved (T×B×4H, rows 4H apart); each step adds h_{t-1}·Wₕᵀ into its B rows and
 * runs the pointwise pass in place. Backward runs from T down to 1: a pointwise pass that
 * writes the gate gradients over saved (so it runs once per forward, with no T×B×3H scratch),
 * then d_h_{t-1} = d_gates_t·Wₕ; after the loop one GEMM gives all of d_xs, one the input half
 * of d_W, two the recurrent half (h0 for the first step, hs for the rest), and one pass the
 * bias sum.
 *
 * Threads: batch rows never meet in the recurrence, so each thread runs the whole time loop on
 * its own slice of rows, with no barrier per step. The products over all rows, before and
 * after the loop, are split between the same threads (by rows of the result), and BLAS runs
 * on one thread meanwhile: one pool of threads per call. With OpenBLAS's own threads working
 * while OpenMP's waited (spinning) on the same two cores, the backward was 2x slower and
 * erratic. */
#include <omp.h>

/* Below this many state elements per thread, one thread runs the loop (BLAS' own threads
 * would not pay at these shapes either). */
#define LLTM_ROWS_PER_THREAD_MIN_WORK 1024

/* Part k of n of the range [0, len). */
static inline int64_t lltm_part(int64_t len, int64_t k, int64_t n) { return len * k / n; }

/* How many threads share the batch rows: each needs enough rows to be worth waking. */
static int lltm_row_threads(int64_t B, int64_t H) {
  int64_t n = omp_get_max_threads();
  if (n > B) n = B;
  while (n > 1 && B / n * H < LLTM_ROWS_PER_THREAD_MIN_WORK) n--;
  return (int)n;
}

/* Rows [r0, r1) of the batch through steps 1..T. saved holds the input half of the gates on
 * entry; c holds c0 on entry and c_T on exit. */
static void lltm_seq_forward_rows(int64_t T, int64_t B, int64_t H, int64_t r0, int64_t r1,
                                  const scalar_t *wt_h, scalar_t *saved, const scalar_t *bias,
                                  const scalar_t *h0, scalar_t *c, scalar_t *hs) {
  const int64_t n = r1 - r0, N = 3 * H;
  for (int64_t t = 0; t < T; t++) {
    const scalar_t *h_prev = t ? hs + ((t - 1) * B + r0) * H : h0 + r0 * H;
    scalar_t *s = saved + (t * B + r0) * 4 * H;
    lltm_gemm(CblasNoTrans, CblasNoTrans, n, N, H, h_prev, H, wt_h, N, 1, s, 4 * H);
    lltm_step_forward(n, H, s, bias, c + r0 * H, hs + (t * B + r0) * H, c + r0 * H);
  }
}

/* Rows [r0, r1) from step T down to 1. dh is scratch (B×H); dc holds d_cT on entry and d_c0
 * on exit; each step's gate gradients replace its activations in saved. */
static void lltm_seq_backward_rows(int64_t T, int64_t B, int64_t H, int64_t K, int64_t r0,
                                   int64_t r1, const scalar_t *W, const scalar_t *d_hs,
                                   const scalar_t *d_hT, scalar_t *dh, scalar_t *dc,
                                   scalar_t *saved, scalar_t *d_h0) {
  const int64_t n = r1 - r0, N = 3 * H;
  const scalar_t *last = d_hs + ((T - 1) * B + r0) * H;
  for (int64_t i = 0; i < n * H; i++) dh[r0 * H + i] = last[i] + (d_hT ? d_hT[r0 * H + i] : 0);
  for (int64_t t = T - 1; t >= 0; t--) {
    scalar_t *s = saved + (t * B + r0) * 4 * H;
    lltm_step_backward(n, H, dh + r0 * H, dc + r0 * H, s, s, 4 * H, dc + r0 * H);
    if (t > 0) {
      memcpy(dh + r0 * H, d_hs + ((t - 1) * B + r0) * H, (size_t)(n * H) * sizeof(scalar_t));
      lltm_gemm(CblasNoTrans, CblasNoTrans, n, H, N, s, 4 * H, W, K, 1, dh + r0 * H, H);
    } else {
      lltm_gemm(CblasNoTrans, CblasNoTrans, n, H, N, s, 4 * H, W, K, 0, d_h0 + r0 * H, H);
    }
  }
}

static int lltm_seq_forward(fused_tensor *hs, fused_tensor *c_T, fused_tensor *saved,
                            const fused_tensor *xs, const fused_tensor *h0, const fused_tensor *c0,
                            const fused_tensor *W, const fused_tensor *b) {
  const int64_t T = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = h0->sizes[1];
  const int64_t K = H + In, N = 3 * H;
  scalar_t *wt = lltm_scratch("lltm_seq_forward", K * N);
  if (!wt) return -1;
  scalar_t *s = (scalar_t *)saved->data, *c = (scalar_t *)c_T->data;
  lltm_transpose(wt, N, (const scalar_t *)W->data, K, N, K);
  memcpy(c, c0->data, (size_t)(B * H) * sizeof(scalar_t));
  const scalar_t *bias = (const scalar_t *)b->data, *h_0 = (const scalar_t *)h0->data;
  const scalar_t *x = (const scalar_t *)xs->data;
  scalar_t *h_s = (scalar_t *)hs->data;
  const int threads = lltm_row_threads(B, H);
  if (threads > 1) openblas_set_num_threads(1);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int64_t k = omp_get_thread_num(), n = omp_get_num_threads();
    const int64_t m0 = lltm_part(T * B, k, n), m1 = lltm_part(T * B, k + 1, n);
    lltm_gemm(CblasNoTrans, CblasNoTrans, m1 - m0, N, In, x + m0 * In, In, wt + H * N, N, 0,
              s + m0 * 4 * H, 4 * H);
#pragma omp barrier
    lltm_seq_forward_rows(T, B, H, lltm_part(B, k, n), lltm_part(B, k + 1, n), wt, s, bias, h_0,
                          c, h_s);
  }
  if (threads > 1) openblas_set_num_threads(omp_get_max_threads());
  free(wt);
  return 0;
}

static int lltm_seq_backward(fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                             fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *d_hs,
                             const fused_tensor *d_hT, const fused_tensor *d_cT,
                             fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                             const fused_tensor *hs, const fused_tensor *W, int32_t accumulate) {
  const int64_t T = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = h0->sizes[1];
  const int64_t K = H + In, N = 3 * H;
  scalar_t *dh = lltm_scratch("lltm_seq_backward", B * H);
  if (!dh) return -1;
  scalar_t *dc = (scalar_t *)d_c0->data, *d_gates = (scalar_t *)saved->data;
  if (d_cT) memcpy(dc, d_cT->data, (size_t)(B * H) * sizeof(scalar_t));
  else memset(dc, 0, (size_t)(B * H) * sizeof(scalar_t));
  const scalar_t *w = (const scalar_t *)W->data, *g_hs = (const scalar_t *)d_hs->data;
  const scalar_t *g_hT = d_hT ? (const scalar_t *)d_hT->data : NULL;
  scalar_t *g_h0 = (scalar_t *)d_h0->data;
  const scalar_t beta = accumulate ? 1 : 0;
  const int64_t ld = 4 * H;
  const scalar_t *x = (const scalar_t *)xs->data, *h_0 = (const scalar_t *)h0->data;
  const scalar_t *h_s = (const scalar_t *)hs->data;
  scalar_t *dW = (scalar_t *)d_W->data, *dx = (scalar_t *)d_xs->data, *db = (scalar_t *)d_b->data;
  const int threads = lltm_row_threads(B, H);
  if (threads > 1) openblas_set_num_threads(1);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int64_t k = omp_get_thread_num(), n = omp_get_num_threads();
    lltm_seq_backward_rows(T, B, H, K, lltm_part(B, k, n), lltm_part(B, k + 1, n), w, g_hs, g_hT,
                           dh, dc, d_gates, g_h0);
#pragma omp barrier
    /* This thread's rows of d_xs, and rows j0..j1 of d_W (entries of d_b). */
    const int64_t m0 = lltm_part(T * B, k, n), m1 = lltm_part(T * B, k + 1, n);
    const int64_t j0 = lltm_part(N, k, n), j1 = lltm_part(N, k + 1, n);
    lltm_gemm(CblasNoTrans, CblasNoTrans, m1 - m0, In, N, d_gates + m0 * ld, ld, w + H, K, 0,
              dx + m0 * In, In);
    lltm_gemm(CblasTrans, CblasNoTrans, j1 - j0, In, T * B, d_gates + j0, ld, x, In, beta,
              dW + j0 * K + H, K);
    lltm_gemm(CblasTrans, CblasNoTrans, j1 - j0, H, B, d_gates + j0, ld, h_0, H, beta,
              dW + j0 * K, K);
    if (T > 1)
      lltm_gemm(CblasTrans, CblasNoTrans, j1 - j0, H, (T - 1) * B, d_gates + B * ld + j0, ld, h_s,
                H, 1, dW + j0 * K, K);
    lltm_bias_grad(db + j0, d_gates + j0, T * B, j1 - j0, ld, accumulate);
  }
  if (threads > 1) openblas_set_num_threads(omp_get_max_threads());
  free(dh);
  return 0;
}
