/* Selection, for every dtype: where (cond, a and b of out's shape, any strides: broadcast
 * operands have stride 0) and picking along a dim by int64 indices counted from 1
 * (index_select, gather), contiguous, seen as [outer, len, inner]. The kernels check every
 * index (check_indices) before touching memory. */

static int where(fused_tensor *out, const fused_tensor *cond, const fused_tensor *ta,
                 const fused_tensor *tb) {
  const bool *c = (const bool *)cond->data;
  const scalar_t *a = (const scalar_t *)ta->data, *b = (const scalar_t *)tb->data;
  scalar_t *y = (scalar_t *)out->data;
  strided_iter it;
  strided_iter_init(&it, cond, ta, tb);
  do {
    const bool *rc = c + it.offset[0];
    const scalar_t *ra = a + it.offset[1], *rb = b + it.offset[2];
    for (int64_t i = 0; i < it.inner; i++)
      y[i] = rc[i * it.inner_stride[0]] ? ra[i * it.inner_stride[1]] : rb[i * it.inner_stride[2]];
    y += it.inner;
  } while (strided_iter_next(&it));
  return 0;
}

/* out[o, k, i] = in[o, index[k], i]: whole runs of inner elements. */
static int index_select(fused_tensor *out, const fused_tensor *in, int32_t dim,
                        const fused_tensor *index) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim], n = index->sizes[0];
  const int64_t *idx = (const int64_t *)index->data;
  FUSED_TRY(check_indices("index_select", "index", "integers", idx, n, len));
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < n; k++)
      memcpy(y + (o * n + k) * inner, x + (o * len + idx[k] - 1) * inner,
             (size_t)inner * sizeof(scalar_t));
  return 0;
}

/* out[o, k, i] = in[o, index[o, k, i], i]. */
static int gather(fused_tensor *out, const fused_tensor *in, int32_t dim,
                  const fused_tensor *index) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim], n = index->sizes[dim];
  const int64_t *idx = (const int64_t *)index->data;
  FUSED_TRY(check_indices("gather", "index", "integers", idx, fused_tensor_numel(index), len));
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t total = outer * n * inner;
#pragma omp parallel for if (total > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < total; j++)
    y[j] = x[(j / (n * inner) * len + idx[j] - 1) * inner + j % inner];
  return 0;
}

/* Concatenation along dim: each input a block of rows of out, [outer, dim, inner]. */
static int cat(fused_tensor *out, const fused_tensor *const *inputs, int32_t n, int32_t dim) {
  int64_t outer, inner;
  outer_dim_inner(out, dim, &outer, &inner);
  scalar_t *y = (scalar_t *)out->data;
  const int64_t out_row = out->sizes[dim] * inner;
  int64_t at = 0;
  for (int32_t k = 0; k < n; k++) {
    const int64_t row = inputs[k]->sizes[dim] * inner;
    const scalar_t *x = (const scalar_t *)inputs[k]->data;
    for (int64_t o = 0; o < outer; o++)
      memcpy(y + o * out_row + at, x + o * row, (size_t)row * sizeof(scalar_t));
    at += row;
  }
  return 0;
}
