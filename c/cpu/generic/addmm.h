/* out = beta * bias + alpha * a @ b on OpenBLAS. The API has checked the layouts. */

/* A 2-D operand is row-major (stride 1 along columns) or a transposed view of one. */
static void gemm_operand(const fused_tensor *t, enum CBLAS_TRANSPOSE *trans, int *ld) {
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  if ((t->strides[1] == 1 || cols == 1) && (rows == 1 || t->strides[0] >= cols)) {
    *trans = CblasNoTrans;
    *ld = (int)(rows == 1 ? cols : t->strides[0]);
  } else {
    *trans = CblasTrans;
    *ld = (int)(cols == 1 ? rows : t->strides[1]);
  }
}

static int addmm(fused_tensor *out, const fused_tensor *bias, const fused_tensor *a,
                 const fused_tensor *b, double beta, double alpha) {
  const int64_t m = out->sizes[0], n = out->sizes[1], k = a->sizes[1];
  scalar_t *y = (scalar_t *)out->data;
  double gemm_beta = 0;
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
  gemm_operand(a, &ta, &lda);
  gemm_operand(b, &tb, &ldb);
  cblas_gemm(CblasRowMajor, ta, tb, (int)m, (int)n, (int)k, (scalar_t)alpha,
             (const scalar_t *)a->data, lda, (const scalar_t *)b->data, ldb,
             (scalar_t)gemm_beta, y, (int)n);
  return 0;
}
