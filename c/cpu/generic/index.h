/* Indexing by a mask or by int64 indices counted from 1 that write, for every dtype, over
 * contiguous tensors. The kernels check every index (check_indices) before touching memory,
 * and run in order, so that index_put without accumulate keeps the last of repeated positions. */

/* The elements of in where mask is true, in row-major order, into out (of that length). */
static int masked_select(fused_tensor *out, const fused_tensor *in, const fused_tensor *mask) {
  const bool *m = (const bool *)mask->data;
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(in), len = out->sizes[0];
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++) at += m[i];
  if (at != len)
    return fused_error("masked_select: argument 'out' expected %lld elements (the mask's true "
                       "ones), got %lld", (long long)at, (long long)len);
  at = 0;
  for (int64_t i = 0; i < n; i++)
    if (m[i]) y[at++] = x[i];
  return 0;
}

/* t's elements where mask is true take src's, in order. */
static int masked_scatter(fused_tensor *t, const fused_tensor *mask, const fused_tensor *src) {
  const bool *m = (const bool *)mask->data;
  const scalar_t *x = (const scalar_t *)src->data;
  scalar_t *y = (scalar_t *)t->data;
  const int64_t n = fused_tensor_numel(t), len = fused_tensor_numel(src);
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) count += m[i];
  if (count > len)
    return fused_error("masked_scatter: argument 'src' expected at least %lld elements (the "
                       "mask's true ones), got %lld", (long long)count, (long long)len);
  int64_t at = 0;
  for (int64_t i = 0; i < n; i++)
    if (m[i]) y[i] = x[at++];
  return 0;
}

/* t[indices[0][k], ..., indices[n_indices - 1][k], :] = (or +=) values[k, :]. */
static int index_put(fused_tensor *t, const fused_tensor *const *indices, int32_t n_indices,
                     const fused_tensor *values, int32_t accumulate) {
  const int64_t n = indices[0]->sizes[0];
  for (int32_t d = 0; d < n_indices; d++) {
    char arg[32];
    snprintf(arg, sizeof arg, "indices[%d]", d);
    FUSED_TRY(check_indices("index_put", arg, "integers", (const int64_t *)indices[d]->data, n,
                            t->sizes[d]));
  }
  int64_t inner = 1;
  for (int32_t d = n_indices; d < t->ndim; d++) inner *= t->sizes[d];
  const scalar_t *v = (const scalar_t *)values->data;
  scalar_t *y = (scalar_t *)t->data;
  for (int64_t k = 0; k < n; k++) {
    int64_t at = 0;
    for (int32_t d = 0; d < n_indices; d++)
      at += (((const int64_t *)indices[d]->data)[k] - 1) * t->strides[d];
    if (accumulate)
      for (int64_t i = 0; i < inner; i++)
        y[at + i] = SCALAR_OF(fused_value(y[at + i]) + fused_value(v[k * inner + i]));
    else
      memcpy(y + at, v + k * inner, (size_t)inner * sizeof(scalar_t));
  }
  return 0;
}

/* t[o, index[k], i] += source[o, k, i]. */
static int index_add(fused_tensor *t, int32_t dim, const fused_tensor *index,
                     const fused_tensor *source) {
  int64_t outer, inner;
  outer_dim_inner(t, dim, &outer, &inner);
  const int64_t len = t->sizes[dim], n = index->sizes[0];
  const int64_t *idx = (const int64_t *)index->data;
  FUSED_TRY(check_indices("index_add", "index", "integers", idx, n, len));
  const scalar_t *x = (const scalar_t *)source->data;
  scalar_t *y = (scalar_t *)t->data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < n; k++)
      for (int64_t i = 0; i < inner; i++)
        y[(o * len + idx[k] - 1) * inner + i] =
            SCALAR_OF(fused_value(y[(o * len + idx[k] - 1) * inner + i]) +
                      fused_value(x[(o * n + k) * inner + i]));
  return 0;
}
