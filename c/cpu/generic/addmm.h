/* out = beta * bias + alpha * a @ b on the chooser's provider (gemm.h). The API has checked the
 * layouts. */

#include "../../maths/gemm.h"

/* The operand as BLAS reads it; the API has checked that it can (gemm_layout_of). */
static const scalar_t *gemm_operand(const fused_tensor *t, enum CBLAS_TRANSPOSE *trans, int *ld) {
  gemm_layout layout = {0, 0};
  gemm_layout_of(t, &layout);
  *trans = layout.transposed ? CblasTrans : CblasNoTrans;
  *ld = (int)layout.ld;
  return (const scalar_t *)t->data;
}

static int addmm(fused_tensor *out, const fused_tensor *bias, const fused_tensor *a,
                 const fused_tensor *b, double beta, double alpha) {
  const int64_t m = out->sizes[0], n = out->sizes[1], k = a->sizes[1];
  if (m == 0 || n == 0) return 0; /* nothing to write; k == 0 leaves BLAS to write beta * y */
  scalar_t *y = (scalar_t *)out->data;
  double gemm_beta = 0;
  if (beta == 0) bias = NULL; /* ignored, NaN and inf in it too, as PyTorch and Torch7 do */
  if (bias && bias->ndim == 1) {
    const scalar_t *v = (const scalar_t *)bias->data;
    for (int64_t r = 0; r < m; r++)
      for (int64_t c = 0; c < n; c++) y[r * n + c] = (scalar_t)beta * v[c];
    gemm_beta = 1;
  } else if (bias && bias->data == out->data) {
    gemm_beta = beta;
  } else if (bias) {
    const scalar_t *v = (const scalar_t *)bias->data;
    for (int64_t i = 0; i < m * n; i++) y[i] = (scalar_t)beta * v[i];
    gemm_beta = 1;
  }
  enum CBLAS_TRANSPOSE ta, tb;
  int lda, ldb;
  const scalar_t *pa = gemm_operand(a, &ta, &lda), *pb = gemm_operand(b, &tb, &ldb);
  cpu_gemm_scaled(ta, tb, m, n, k, (scalar_t)alpha, pa, lda, pb, ldb, (scalar_t)gemm_beta, y, n);
  return 0;
}
