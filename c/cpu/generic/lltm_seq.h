/* The LLTM over a sequence on the CPU (fused_lltm_seq_forward/backward in fused.h), built on
 * the cell's pointwise passes (lltm.h).
 *
 * Forward: W is transposed once (Wᵀ, (H+I)×3H) so that every product is "NN", the fast form
 * at small shapes; the input half of the gates for all T steps is one GEMM
 * (xs·Wₓᵀ, TB×3H); each step adds h_{t-1}·Wₕᵀ into its B×3H block and runs the pointwise pass.
 * Backward runs from T down to 1: a pointwise pass, then d_h_{t-1} = d_gates_t·Wₕ; after the
 * loop one GEMM gives all of d_xs, one the input half of d_W, two the recurrent half (h0 for
 * the first step, hs for the rest), and one pass the bias sum.
 *
 * Batch rows never meet in the recurrence, so with several threads each thread runs the whole
 * time loop on its own slice of rows, with no barrier per step, calling single-threaded BLAS;
 * the products over all rows (before and after the loop) use every thread inside BLAS. */
#include <omp.h>

/* Below this many state elements per thread, one thread runs the loop (BLAS' own threads
 * would not pay at these shapes either). */
#define LLTM_ROWS_PER_THREAD_MIN_WORK 1024

/* How many threads share the batch rows: each needs enough rows to be worth waking. */
static int lltm_row_threads(int64_t B, int64_t H) {
  int64_t n = omp_get_max_threads();
  if (n > B) n = B;
  while (n > 1 && B / n * H < LLTM_ROWS_PER_THREAD_MIN_WORK) n--;
  return (int)n;
}

/* Rows [r0, r1) of the batch through steps 1..T. gates holds the input half on entry; c holds
 * c0 on entry and c_T on exit. */
static void lltm_seq_forward_rows(int64_t T, int64_t B, int64_t H, int64_t r0, int64_t r1,
                                  const scalar_t *wt_h, scalar_t *gates, const scalar_t *bias,
                                  const scalar_t *h0, scalar_t *c, scalar_t *hs,
                                  scalar_t *saved) {
  const int64_t n = r1 - r0, N = 3 * H;
  for (int64_t t = 0; t < T; t++) {
    const scalar_t *h_prev = t ? hs + ((t - 1) * B + r0) * H : h0 + r0 * H;
    scalar_t *g = gates + (t * B + r0) * N;
    lltm_gemm(CblasNoTrans, CblasNoTrans, n, N, H, h_prev, H, wt_h, N, 1, g, N);
    lltm_step_forward(n, H, g, bias, c + r0 * H, hs + (t * B + r0) * H, c + r0 * H,
                      saved + (t * B + r0) * 4 * H);
  }
}

/* Rows [r0, r1) from step T down to 1. dh is scratch (B×H); dc holds d_cT on entry and d_c0
 * on exit; d_gates (T×B×3H) receives every step's gate gradients. */
static void lltm_seq_backward_rows(int64_t T, int64_t B, int64_t H, int64_t K, int64_t r0,
                                   int64_t r1, const scalar_t *W, const scalar_t *d_hs,
                                   const scalar_t *d_hT, scalar_t *dh, scalar_t *dc,
                                   const scalar_t *saved, scalar_t *d_gates, scalar_t *d_h0) {
  const int64_t n = r1 - r0, N = 3 * H;
  const scalar_t *last = d_hs + ((T - 1) * B + r0) * H;
  for (int64_t i = 0; i < n * H; i++) dh[r0 * H + i] = last[i] + (d_hT ? d_hT[r0 * H + i] : 0);
  for (int64_t t = T - 1; t >= 0; t--) {
    scalar_t *dg = d_gates + (t * B + r0) * N;
    lltm_step_backward(n, H, dh + r0 * H, dc + r0 * H, saved + (t * B + r0) * 4 * H, dg,
                       dc + r0 * H);
    if (t > 0) {
      memcpy(dh + r0 * H, d_hs + ((t - 1) * B + r0) * H, (size_t)(n * H) * sizeof(scalar_t));
      lltm_gemm(CblasNoTrans, CblasNoTrans, n, H, N, dg, N, W, K, 1, dh + r0 * H, H);
    } else {
      lltm_gemm(CblasNoTrans, CblasNoTrans, n, H, N, dg, N, W, K, 0, d_h0 + r0 * H, H);
    }
  }
}

static int lltm_seq_forward(fused_tensor *hs, fused_tensor *c_T, fused_tensor *saved,
                            const fused_tensor *xs, const fused_tensor *h0, const fused_tensor *c0,
                            const fused_tensor *W, const fused_tensor *b) {
  const int64_t T = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = h0->sizes[1];
  const int64_t K = H + In, N = 3 * H;
  scalar_t *wt = lltm_scratch("lltm_seq_forward", K * N + T * B * N);
  if (!wt) return -1;
  scalar_t *gates = wt + K * N;
  lltm_transpose(wt, N, (const scalar_t *)W->data, K, N, K);
  lltm_gemm(CblasNoTrans, CblasNoTrans, T * B, N, In, (const scalar_t *)xs->data, In,
            wt + H * N, N, 0, gates, N);
  scalar_t *c = (scalar_t *)c_T->data;
  memcpy(c, c0->data, (size_t)(B * H) * sizeof(scalar_t));
  const scalar_t *bias = (const scalar_t *)b->data, *h_0 = (const scalar_t *)h0->data;
  scalar_t *h_s = (scalar_t *)hs->data, *s = (scalar_t *)saved->data;
  const int threads = lltm_row_threads(B, H);
  if (threads > 1) openblas_set_num_threads(1); /* each thread makes its own small calls */
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int64_t k = omp_get_thread_num(), n = omp_get_num_threads();
    lltm_seq_forward_rows(T, B, H, B * k / n, B * (k + 1) / n, wt, gates, bias, h_0, c, h_s, s);
  }
  if (threads > 1) openblas_set_num_threads(omp_get_max_threads());
  free(wt);
  return 0;
}

static int lltm_seq_backward(fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                             fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *d_hs,
                             const fused_tensor *d_hT, const fused_tensor *d_cT,
                             const fused_tensor *saved, const fused_tensor *xs,
                             const fused_tensor *h0, const fused_tensor *hs, const fused_tensor *W,
                             int32_t accumulate) {
  const int64_t T = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = h0->sizes[1];
  const int64_t K = H + In, N = 3 * H;
  scalar_t *d_gates = lltm_scratch("lltm_seq_backward", T * B * N + B * H);
  if (!d_gates) return -1;
  scalar_t *dh = d_gates + T * B * N, *dc = (scalar_t *)d_c0->data;
  if (d_cT) memcpy(dc, d_cT->data, (size_t)(B * H) * sizeof(scalar_t));
  else memset(dc, 0, (size_t)(B * H) * sizeof(scalar_t));
  const scalar_t *w = (const scalar_t *)W->data, *g_hs = (const scalar_t *)d_hs->data;
  const scalar_t *g_hT = d_hT ? (const scalar_t *)d_hT->data : NULL;
  const scalar_t *s = (const scalar_t *)saved->data;
  scalar_t *g_h0 = (scalar_t *)d_h0->data;
  const int threads = lltm_row_threads(B, H);
  if (threads > 1) openblas_set_num_threads(1); /* each thread makes its own small calls */
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int64_t k = omp_get_thread_num(), n = omp_get_num_threads();
    lltm_seq_backward_rows(T, B, H, K, B * k / n, B * (k + 1) / n, w, g_hs, g_hT, dh, dc, s,
                           d_gates, g_h0);
  }
  if (threads > 1) openblas_set_num_threads(omp_get_max_threads());
  const scalar_t beta = accumulate ? 1 : 0;
  scalar_t *dW = (scalar_t *)d_W->data;
  lltm_gemm(CblasNoTrans, CblasNoTrans, T * B, In, N, d_gates, N, w + H, K, 0,
            (scalar_t *)d_xs->data, In);
  lltm_gemm(CblasTrans, CblasNoTrans, N, In, T * B, d_gates, N, (const scalar_t *)xs->data, In,
            beta, dW + H, K);
  lltm_gemm(CblasTrans, CblasNoTrans, N, H, B, d_gates, N, (const scalar_t *)h0->data, H, beta,
            dW, K);
  if (T > 1)
    lltm_gemm(CblasTrans, CblasNoTrans, N, H, (T - 1) * B, d_gates + B * N, N,
              (const scalar_t *)hs->data, H, 1, dW, K);
  lltm_bias_grad((scalar_t *)d_b->data, d_gates, T * B, N, accumulate);
  free(d_gates);
  return 0;
}
