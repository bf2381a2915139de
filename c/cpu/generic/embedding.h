/* Embedding lookup and its gradient. Indices are int64 counted from 1; the API has checked
 * shapes, and the kernels check every index (check_indices) before touching memory. */

static int embedding_forward(fused_tensor *out, const fused_tensor *weight,
                             const fused_tensor *indices) {
  const int64_t n = fused_tensor_numel(indices), rows = weight->sizes[0], dim = weight->sizes[1];
  const scalar_t *w = (const scalar_t *)weight->data;
  const int64_t *idx = (const int64_t *)indices->data;
  scalar_t *y = (scalar_t *)out->data;
  FUSED_TRY(check_indices("embedding_forward", "indices", "integers", idx, n, rows));
  for (int64_t k = 0; k < n; k++)
    memcpy(y + k * dim, w + (idx[k] - 1) * dim, (size_t)dim * sizeof(scalar_t));
  return 0;
}

/* Serial: rows repeat among the indices, and the adds are cheap next to the model's GEMMs. */
static int embedding_backward(fused_tensor *grad_weight, const fused_tensor *grad_out,
                              const fused_tensor *indices) {
  const int64_t n = fused_tensor_numel(indices), rows = grad_weight->sizes[0],
                dim = grad_weight->sizes[1];
  const scalar_t *g = (const scalar_t *)grad_out->data;
  const int64_t *idx = (const int64_t *)indices->data;
  scalar_t *gw = (scalar_t *)grad_weight->data;
  FUSED_TRY(check_indices("embedding_backward", "indices", "integers", idx, n, rows));
  for (int64_t k = 0; k < n; k++) {
    scalar_t *row = gw + (idx[k] - 1) * dim;
    const scalar_t *src = g + k * dim;
    for (int64_t c = 0; c < dim; c++) row[c] += src[c];
  }
  return 0;
}
