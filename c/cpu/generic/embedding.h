/* Embedding lookup and its gradient. Indices are values of scalar_t counted from 1; the API
 * has checked shapes, and the kernels check each index before touching memory. */

/* The 0-based row for indices[k], or -1 (with the error set) when it is not 1..rows. */
static int64_t embedding_row(const char *fn, const scalar_t *indices, int64_t k, int64_t rows) {
  const scalar_t i = indices[k];
  if (!(i >= 1 && i <= (scalar_t)rows && i == floor(i))) {
    fused_error("%s: argument 'indices' expected integers 1 to %lld, got %g at position %lld",
                fn, (long long)rows, (double)i, (long long)k + 1);
    return -1;
  }
  return (int64_t)i - 1;
}

static int embedding_forward(fused_tensor *out, const fused_tensor *weight,
                             const fused_tensor *indices) {
  const int64_t n = fused_tensor_numel(indices), rows = weight->sizes[0], dim = weight->sizes[1];
  const scalar_t *w = (const scalar_t *)weight->data, *idx = (const scalar_t *)indices->data;
  scalar_t *y = (scalar_t *)out->data;
  for (int64_t k = 0; k < n; k++) {
    const int64_t row = embedding_row("embedding_forward", idx, k, rows);
    if (row < 0) return -1;
    memcpy(y + k * dim, w + row * dim, (size_t)dim * sizeof(scalar_t));
  }
  return 0;
}

/* Serial: rows repeat among the indices, and the adds are cheap next to the model's GEMMs. */
static int embedding_backward(fused_tensor *grad_weight, const fused_tensor *grad_out,
                              const fused_tensor *indices) {
  const int64_t n = fused_tensor_numel(indices), rows = grad_weight->sizes[0],
                dim = grad_weight->sizes[1];
  const scalar_t *g = (const scalar_t *)grad_out->data, *idx = (const scalar_t *)indices->data;
  scalar_t *gw = (scalar_t *)grad_weight->data;
  for (int64_t k = 0; k < n; k++)
    if (embedding_row("embedding_backward", idx, k, rows) < 0) return -1;
  for (int64_t k = 0; k < n; k++) {
    scalar_t *row = gw + ((int64_t)idx[k] - 1) * dim;
    const scalar_t *src = g + k * dim;
    for (int64_t c = 0; c < dim; c++) row[c] += src[c];
  }
  return 0;
}
