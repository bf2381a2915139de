/* Sum along a dim, on contiguous tensors seen as [outer, dim, inner]. */

static int sum_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS && outer > 1)
  for (int64_t o = 0; o < outer; o++) {
    scalar_t *row = y + o * inner;
    const scalar_t *slab = x + o * len * inner;
    if (inner == 1) {
      scalar_t acc = 0;
      for (int64_t d = 0; d < len; d++) acc += slab[d];
      row[0] = acc;
      continue;
    }
    for (int64_t i = 0; i < inner; i++) row[i] = 0;
    for (int64_t d = 0; d < len; d++)
      for (int64_t i = 0; i < inner; i++) row[i] += slab[d * inner + i];
  }
  return 0;
}
