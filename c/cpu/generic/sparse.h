/* out = relu?(S @ x + bias) for a CSR matrix S, one pass over the rows of out: each row starts
 * at the bias, adds its entries' rows of x, and takes the relu while it is still in cache. The
 * API has checked the tensors; the structure is checked here before any index is used. */
#include "../../maths/pointwise.h"

static int spmm(fused_tensor *out, const fused_tensor *row_ptr, const fused_tensor *col_idx,
                const fused_tensor *values, const fused_tensor *x, const fused_tensor *bias,
                int32_t relu) {
  const int64_t n = out->sizes[0], k = out->sizes[1], nnz = values->sizes[0];
  const int64_t *rp = (const int64_t *)row_ptr->data, *ci = (const int64_t *)col_idx->data;
  FUSED_TRY(check_csr("sparse.mm", rp, n, ci, nnz, x->sizes[0]));
  const scalar_t *v = (const scalar_t *)values->data, *xs = (const scalar_t *)x->data;
  const scalar_t *b = bias ? (const scalar_t *)bias->data : NULL;
  scalar_t *y = (scalar_t *)out->data;
  /* Rows differ in length (degrees do): dynamic chunks of rows keep the threads even. */
#pragma omp parallel for schedule(dynamic, 64) if ((nnz + n) * k > PARALLEL_MIN_ELEMENTS)
  for (int64_t i = 0; i < n; i++) {
    scalar_t *row = y + i * k;
    for (int64_t c = 0; c < k; c++) row[c] = b ? b[c] : 0;
    for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
      const scalar_t a = v[p];
      const scalar_t *src = xs + (ci[p] - 1) * k;
#pragma omp simd
      for (int64_t c = 0; c < k; c++) row[c] += a * src[c];
    }
    if (relu) VEC_FOR(k, c, m, vstore(row + c, apply_unary(FUSED_RELU, vload(row + c, m), 0), m);)
  }
  return 0;
}
