/* The LLTM cell on the CPU (fused_lltm_forward/backward in fused.h).
 *
 * Layouts, chosen by measurement (OpenBLAS, one thread, float32, (B, I, H) = (16, 32, 128)):
 * the forward GEMM as gatesᵀ = W·Xᵀ ("NN", 17 µs) instead of gates = X·Wᵀ ("NT", 30 µs), so
 * the forward builds Xᵀ = [h, x]ᵀ (the transpose is the concatenation, 0.7 µs) and transposes
 * gatesᵀ back into saved (1.7 µs). At large shapes both products run at the same speed. The
 * backward is row-major throughout: d_X = d_gates·W is NN and d_W = d_gatesᵀ·X is TN, both
 * fast. saved is B×4H: [input_gate, output_gate, candidate, tanh(new_c)] per batch row. */
#include <stdlib.h>

/* dst[c * ld_dst + r] = src[r * ld_src + c] for a rows×cols src, in tiles that stay in cache. */
static void lltm_transpose(scalar_t *dst, int64_t ld_dst, const scalar_t *src, int64_t ld_src,
                           int64_t rows, int64_t cols) {
  enum { TILE = 16 };
  for (int64_t r0 = 0; r0 < rows; r0 += TILE)
    for (int64_t c0 = 0; c0 < cols; c0 += TILE) {
      const int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows;
      const int64_t c1 = c0 + TILE < cols ? c0 + TILE : cols;
      for (int64_t c = c0; c < c1; c++)
        for (int64_t r = r0; r < r1; r++) dst[c * ld_dst + r] = src[r * ld_src + c];
    }
}

/* Not inlined: GCC then no longer sees fresh malloc memory handed to BLAS before the loops
 * that fill it, and stops warning that it may be read uninitialised. */
__attribute__((noinline)) static scalar_t *lltm_scratch(const char *fn, int64_t n) {
  scalar_t *p = malloc((size_t)n * sizeof(scalar_t));
  if (!p) fused_error("%s: out of memory for %lld elements of scratch", fn, (long long)n);
  return p;
}

static void lltm_gemm(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                      int64_t k, const scalar_t *a, int64_t lda, const scalar_t *b, int64_t ldb,
                      scalar_t beta, scalar_t *c, int64_t ldc) {
  cblas_gemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, 1, a, (int)lda, b, (int)ldb, beta, c,
             (int)ldc);
}

/* The forward's pointwise pass, in place over one row of saved (4H): the gate pre-activations
 * (3H, bias not yet added) on entry, [input_gate, output_gate, candidate, tanh(new_c)] on exit.
 * Each element is read before the same element is written, so no scratch copy of the gates is
 * needed. c and new_c may be the same memory. The maths is lltm_element_forward's
 * (c/maths/lltm.h), operation for operation, over vectors (simd_math.h). */
static inline void lltm_step_forward_row(int64_t H, scalar_t *s, const scalar_t *bias,
                                         const scalar_t *c, scalar_t *new_h, scalar_t *new_c) {
  VEC_FOR(H, j, m, {
    const vec input_gate = sigmoid_of(vload(s + j, m) + vload(bias + j, m));
    const vec output_gate = sigmoid_of(vload(s + H + j, m) + vload(bias + H + j, m));
    const vec candidate = elu_of(vload(s + 2 * H + j, m) + vload(bias + 2 * H + j, m), 1);
    const vec cell = vload(c + j, m) + candidate * input_gate;
    const vec tanh_cell = tanh_of(cell);
    vstore(new_c + j, cell, m);
    vstore(new_h + j, tanh_cell * output_gate, m);
    vstore(s + j, input_gate, m);
    vstore(s + H + j, output_gate, m);
    vstore(s + 2 * H + j, candidate, m);
    vstore(s + 3 * H + j, tanh_cell, m);
  })
}

/* The backward's pointwise pass over one row: d_gates (3H, with respect to the pre-activations)
 * and d_c from the gradients at new_h and new_c, as lltm_element_backward computes them.
 * d_gates may be the row of saved itself (each element is read before it is written), and
 * grad_c and d_c the same memory. */
static inline void lltm_step_backward_row(int64_t H, const scalar_t *grad_h,
                                          const scalar_t *grad_c, const scalar_t *s,
                                          scalar_t *dg, scalar_t *d_c) {
  VEC_FOR(H, j, m, {
    const vec g_h = vload(grad_h + j, m), input_gate = vload(s + j, m);
    const vec output_gate = vload(s + H + j, m), candidate = vload(s + 2 * H + j, m);
    const vec tanh_cell = vload(s + 3 * H + j, m);
    const vec d_cell = vload(grad_c + j, m) + g_h * output_gate * d_tanh_from_output(tanh_cell);
    vstore(dg + j, d_cell * candidate * d_sigmoid_from_output(input_gate), m);
    vstore(dg + H + j, g_h * tanh_cell * d_sigmoid_from_output(output_gate), m);
    vstore(dg + 2 * H + j, d_cell * input_gate * d_elu_from_output(candidate), m);
    vstore(d_c + j, d_cell, m);
  })
}

/* The passes over B rows (saved's rows 4H apart, d_gates' ld_dg apart), on OpenMP threads only
 * when large: even a region with a false if() costs a runtime call (see parallel.h). */
static void lltm_step_forward(int64_t B, int64_t H, scalar_t *saved, const scalar_t *bias,
                              const scalar_t *c, scalar_t *new_h, scalar_t *new_c) {
  if (B * H > PARALLEL_MIN_ELEMENTS) {
#pragma omp parallel for
    for (int64_t r = 0; r < B; r++)
      lltm_step_forward_row(H, saved + r * 4 * H, bias, c + r * H, new_h + r * H, new_c + r * H);
  } else {
    for (int64_t r = 0; r < B; r++)
      lltm_step_forward_row(H, saved + r * 4 * H, bias, c + r * H, new_h + r * H, new_c + r * H);
  }
}

static void lltm_step_backward(int64_t B, int64_t H, const scalar_t *grad_h,
                               const scalar_t *grad_c, const scalar_t *saved, scalar_t *d_gates,
                               int64_t ld_dg, scalar_t *d_c) {
  if (B * H > PARALLEL_MIN_ELEMENTS) {
#pragma omp parallel for
    for (int64_t r = 0; r < B; r++)
      lltm_step_backward_row(H, grad_h + r * H, grad_c + r * H, saved + r * 4 * H,
                             d_gates + r * ld_dg, d_c + r * H);
  } else {
    for (int64_t r = 0; r < B; r++)
      lltm_step_backward_row(H, grad_h + r * H, grad_c + r * H, saved + r * 4 * H,
                             d_gates + r * ld_dg, d_c + r * H);
  }
}

/* d_b (+)= the column sums of the rows×n matrix d_gates (rows ld apart). */
static void lltm_bias_grad(scalar_t *d_b, const scalar_t *d_gates, int64_t rows, int64_t n,
                           int64_t ld, int32_t accumulate) {
  if (!accumulate)
    for (int64_t j = 0; j < n; j++) d_b[j] = 0;
  for (int64_t r = 0; r < rows; r++) {
    const scalar_t *dg = d_gates + r * ld;
#pragma omp simd
    for (int64_t j = 0; j < n; j++) d_b[j] += dg[j];
  }
}

static int lltm_forward(fused_tensor *new_h, fused_tensor *new_c, fused_tensor *saved,
                        const fused_tensor *x, const fused_tensor *h, const fused_tensor *c,
                        const fused_tensor *W, const fused_tensor *b) {
  const int64_t B = x->sizes[0], In = x->sizes[1], H = h->sizes[1], K = H + In;
  scalar_t *xt = lltm_scratch("lltm_forward", K * B + 3 * H * B);
  if (!xt) return -1;
  scalar_t *gates_t = xt + K * B, *s = (scalar_t *)saved->data;
  lltm_transpose(xt, B, (const scalar_t *)h->data, H, B, H);
  lltm_transpose(xt + H * B, B, (const scalar_t *)x->data, In, B, In);
  lltm_gemm(CblasNoTrans, CblasNoTrans, 3 * H, B, K, (const scalar_t *)W->data, K, xt, B, 0,
            gates_t, B);
  lltm_transpose(s, 4 * H, gates_t, B, 3 * H, B);
  lltm_step_forward(B, H, s, (const scalar_t *)b->data, (const scalar_t *)c->data,
                    (scalar_t *)new_h->data, (scalar_t *)new_c->data);
  free(xt);
  return 0;
}

/* One GEMM each for d_X and d_W (on the concatenated X): at (256, 1024, 1024) that beats two
 * GEMMs into column blocks by 4-6%, and the copies cost well under 1%. d_gates is scratch so
 * that backward can run again on the same saved. */
static int lltm_backward(fused_tensor *d_x, fused_tensor *d_h, fused_tensor *d_c,
                         fused_tensor *d_W, fused_tensor *d_b, const fused_tensor *grad_h,
                         const fused_tensor *grad_c, const fused_tensor *saved,
                         const fused_tensor *x, const fused_tensor *h, const fused_tensor *W,
                         int32_t accumulate) {
  const int64_t B = x->sizes[0], In = x->sizes[1], H = h->sizes[1], K = H + In, N = 3 * H;
  scalar_t *d_gates = lltm_scratch("lltm_backward", N * B + 2 * K * B);
  if (!d_gates) return -1;
  scalar_t *X = d_gates + N * B, *d_X = X + K * B;
  lltm_step_backward(B, H, (const scalar_t *)grad_h->data, (const scalar_t *)grad_c->data,
                     (const scalar_t *)saved->data, d_gates, N, (scalar_t *)d_c->data);
  lltm_gemm(CblasNoTrans, CblasNoTrans, B, K, N, d_gates, N, (const scalar_t *)W->data, K, 0,
            d_X, K);
  const scalar_t *hp = (const scalar_t *)h->data, *xp = (const scalar_t *)x->data;
  scalar_t *dh = (scalar_t *)d_h->data, *dx = (scalar_t *)d_x->data;
  for (int64_t r = 0; r < B; r++) {
    memcpy(X + r * K, hp + r * H, (size_t)H * sizeof(scalar_t));
    memcpy(X + r * K + H, xp + r * In, (size_t)In * sizeof(scalar_t));
    memcpy(dh + r * H, d_X + r * K, (size_t)H * sizeof(scalar_t));
    memcpy(dx + r * In, d_X + r * K + H, (size_t)In * sizeof(scalar_t));
  }
  lltm_gemm(CblasTrans, CblasNoTrans, N, K, B, d_gates, N, X, K, accumulate ? 1 : 0,
            (scalar_t *)d_W->data, K);
  lltm_bias_grad((scalar_t *)d_b->data, d_gates, B, N, N, accumulate);
  free(d_gates);
  return 0;
}
