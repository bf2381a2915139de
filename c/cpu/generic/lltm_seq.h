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
 * Threads: the GEMMs use OpenBLAS's threads (those per step only from (64, 256, 512) up; smaller
 * ones run its single-threaded small-matrix kernel) and the pointwise passes OpenMP's, above
 * PARALLEL_MIN_ELEMENTS. Splitting the batch rows over OpenMP threads for the whole time loop
 * (rows never meet in the recurrence) ran 1.9x faster on two threads in a C test, but needs
 * BLAS on one thread inside the region: lowering and raising OpenBLAS's (pthreads) thread count
 * around each call woke its idle threads, which then spun against ours, and steps took 3-10x
 * longer at random. This simple form runs 1.25x (16, 32, 128) and 1.9x (64, 256, 512) faster
 * on two threads than on one (measured from C on an otherwise idle machine). */

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
  for (int64_t t = 0; t < T; t++) {
    const scalar_t *h_prev = t ? h_s + (t - 1) * B * H : (const scalar_t *)h0->data;
    scalar_t *st = s + t * B * ld;
    lltm_gemm(CblasNoTrans, CblasNoTrans, B, N, H, h_prev, H, wt, N, 1, st, ld);
    lltm_step_forward(B, H, st, bias, c, h_s + t * B * H, c);
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
  for (int64_t t = T - 1; t >= 0; t--) {
    scalar_t *dg = d_gates + t * B * ld;
    lltm_step_backward(B, H, dh, dc, dg, dg, ld, dc);
    if (t > 0) {
      memcpy(dh, g_hs + (t - 1) * B * H, (size_t)(B * H) * sizeof(scalar_t));
      lltm_gemm(CblasNoTrans, CblasNoTrans, B, H, N, dg, ld, w, K, 1, dh, H);
    } else {
      lltm_gemm(CblasNoTrans, CblasNoTrans, B, H, N, dg, ld, w, K, 0, (scalar_t *)d_h0->data, H);
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
