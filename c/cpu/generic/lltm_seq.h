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
 * Threads: the batch rows are split over OpenMP threads for the whole time loop (rows never
 * meet in the recurrence, so no barrier is needed): each thread runs the per-step GEMM and
 * pointwise pass of its rows, and OpenBLAS (its OpenMP build, see the Makefile) runs on one
 * thread inside the region. Below SEQ_MIN_ROWS rows a thread, one thread runs the loop and the
 * per-step GEMMs may use BLAS's threads. The GEMMs over all steps, outside the loop, use
 * BLAS's threads. */
#include <omp.h>

/* Fewer rows than this per thread make each thread's per-step GEMM too thin to pay. */
#define SEQ_MIN_ROWS 4

static int seq_threads(int64_t B) {
  const int64_t most = B / SEQ_MIN_ROWS, n = omp_in_parallel() ? 1 : omp_get_max_threads();
  return (int)(most < 1 ? 1 : most < n ? most : n);
}

/* This thread's share [*r0, *r1) of B rows. */
static void seq_rows(int64_t B, int64_t *r0, int64_t *r1) {
  const int64_t k = omp_get_thread_num(), n = omp_get_num_threads();
  *r0 = B * k / n;
  *r1 = B * (k + 1) / n;
}

/* Steps 1..T. saved holds the input half of the gates on entry; c holds c0 on entry and c_T on
 * exit. */
static int lltm_seq_forward(fused_tensor *hs, fused_tensor *c_T, fused_tensor *saved,
                            const fused_tensor *xs, const fused_tensor *h0, const fused_tensor *c0,
                            const fused_tensor *W, const fused_tensor *b) {
  const int64_t T = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = h0->sizes[1];
  const int64_t K = H + In, N = 3 * H, ld = 4 * H;
  scalar_t *wt = lltm_scratch("lltm_seq_forward", K * N);
  if (!wt) return -1;
  scalar_t *s = (scalar_t *)saved->data, *c = (scalar_t *)c_T->data, *h_s = (scalar_t *)hs->data;
  const scalar_t *bias = (const scalar_t *)b->data;
  lltm_transpose(wt, N, (const scalar_t *)W->data, K, N, K);
  lltm_gemm(CblasNoTrans, CblasNoTrans, T * B, N, In, (const scalar_t *)xs->data, In, wt + H * N,
            N, 0, s, ld);
  if (c != (scalar_t *)c0->data) memcpy(c, c0->data, (size_t)(B * H) * sizeof(scalar_t));
#pragma omp parallel num_threads(seq_threads(B))
  {
    int64_t r0, r1;
    seq_rows(B, &r0, &r1);
    for (int64_t t = 0; t < T && r1 > r0; t++) {
      const scalar_t *h_prev = (t ? h_s + (t - 1) * B * H : (const scalar_t *)h0->data) + r0 * H;
      scalar_t *st = s + (t * B + r0) * ld;
      lltm_gemm(CblasNoTrans, CblasNoTrans, r1 - r0, N, H, h_prev, H, wt, N, 1, st, ld);
      lltm_step_forward(r1 - r0, H, st, bias, c + r0 * H, h_s + (t * B + r0) * H, c + r0 * H);
    }
  }
  free(wt);
  return 0;
}

/* Steps T down to 1. dh carries the gradient at h_t (scratch, B×H); d_c0 carries the one at
 * c_t; each step's gate gradients replace its activations in saved. */
static int lltm_seq_backward(fused_tensor *d_xs, fused_tensor *d_h0, fused_tensor *d_c0,
                             fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *d_hs,
                             const fused_tensor *d_hT, const fused_tensor *d_cT,
                             fused_tensor *saved, const fused_tensor *xs, const fused_tensor *h0,
                             const fused_tensor *hs, const fused_tensor *W, int32_t accumulate) {
  const int64_t T = xs->sizes[0], B = xs->sizes[1], In = xs->sizes[2], H = h0->sizes[1];
  const int64_t K = H + In, N = 3 * H, ld = 4 * H;
  scalar_t *dh = lltm_scratch("lltm_seq_backward", B * H);
  if (!dh) return -1;
  scalar_t *dc = (scalar_t *)d_c0->data, *d_gates = (scalar_t *)saved->data;
  const scalar_t *w = (const scalar_t *)W->data, *g_hs = (const scalar_t *)d_hs->data;
  const scalar_t *last = g_hs + (T - 1) * B * H;
  const scalar_t *g_hT = d_hT ? (const scalar_t *)d_hT->data : NULL;
  for (int64_t i = 0; i < B * H; i++) dh[i] = last[i] + (g_hT ? g_hT[i] : 0);
  if (!d_cT) memset(dc, 0, (size_t)(B * H) * sizeof(scalar_t));
  else if (dc != (scalar_t *)d_cT->data)
    memcpy(dc, d_cT->data, (size_t)(B * H) * sizeof(scalar_t));
#pragma omp parallel num_threads(seq_threads(B))
  {
    int64_t r0, r1;
    seq_rows(B, &r0, &r1);
    const int64_t rows = r1 - r0;
    scalar_t *dh_r = dh + r0 * H, *dc_r = dc + r0 * H;
    for (int64_t t = T - 1; t >= 0 && rows > 0; t--) {
      scalar_t *dg = d_gates + (t * B + r0) * ld;
      lltm_step_backward(rows, H, dh_r, dc_r, dg, dg, ld, dc_r);
      if (t > 0) {
        memcpy(dh_r, g_hs + ((t - 1) * B + r0) * H, (size_t)(rows * H) * sizeof(scalar_t));
        lltm_gemm(CblasNoTrans, CblasNoTrans, rows, H, N, dg, ld, w, K, 1, dh_r, H);
      } else {
        lltm_gemm(CblasNoTrans, CblasNoTrans, rows, H, N, dg, ld, w, K, 0,
                  (scalar_t *)d_h0->data + r0 * H, H);
      }
    }
  }
  const scalar_t beta = accumulate ? 1 : 0;
  scalar_t *dW = (scalar_t *)d_W->data;
  lltm_gemm(CblasNoTrans, CblasNoTrans, T * B, In, N, d_gates, ld, w + H, K, 0,
            (scalar_t *)d_xs->data, In);
  lltm_gemm(CblasTrans, CblasNoTrans, N, In, T * B, d_gates, ld, (const scalar_t *)xs->data, In,
            beta, dW + H, K);
  lltm_gemm(CblasTrans, CblasNoTrans, N, H, B, d_gates, ld, (const scalar_t *)h0->data, H, beta,
            dW, K);
  if (T > 1)
    lltm_gemm(CblasTrans, CblasNoTrans, N, H, (T - 1) * B, d_gates + B * ld, ld,
              (const scalar_t *)hs->data, H, 1, dW, K);
  lltm_bias_grad((scalar_t *)d_b->data, d_gates, T * B, N, ld, accumulate);
  free(dh);
  return 0;
}
