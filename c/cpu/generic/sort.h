/* A stable sort along a dim of a contiguous tensor seen as [outer, len, inner]: each column is
 * copied out, its positions merge-sorted by value (bottom-up, so ties keep their order), and
 * the values and their 1-based positions written to contiguous outputs of its shape. NaN is
 * larger than every number, as in PyTorch's sort: last ascending, first descending. */

/* Whether a goes strictly before b. */
static inline bool sorts_before(scalar_t a, scalar_t b, int32_t descending) {
  if (descending) {
    const scalar_t t = a;
    a = b;
    b = t;
  }
  return a < b || (is_nan(b) && !is_nan(a));
}

/* The positions 0..len-1 sorted by key, in pos or in tmp: the one returned. */
static int64_t *merge_sort(int64_t *pos, int64_t *tmp, const scalar_t *key, int64_t len,
                           int32_t descending) {
  for (int64_t i = 0; i < len; i++) pos[i] = i;
  for (int64_t width = 1; width < len; width *= 2) {
    for (int64_t lo = 0; lo < len; lo += 2 * width) {
      const int64_t mid = lo + width < len ? lo + width : len;
      const int64_t hi = lo + 2 * width < len ? lo + 2 * width : len;
      int64_t i = lo, j = mid, k = lo;
      /* the right run's element goes first only when strictly before: stable */
      while (i < mid && j < hi)
        tmp[k++] = sorts_before(key[pos[j]], key[pos[i]], descending) ? pos[j++] : pos[i++];
      while (i < mid) tmp[k++] = pos[i++];
      while (j < hi) tmp[k++] = pos[j++];
    }
    int64_t *t = pos;
    pos = tmp;
    tmp = t;
  }
  return pos;
}

static int sort_dim(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
                    int32_t dim, int32_t descending) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *v = (scalar_t *)values->data;
  int64_t *at = (int64_t *)indices->data;
  const size_t n = (size_t)(len > 0 ? len : 1); /* malloc(0) may be NULL: not out of memory */
  scalar_t *key = malloc(n * sizeof *key);
  int64_t *pos = malloc(n * sizeof *pos), *tmp = malloc(n * sizeof *tmp);
  if (!key || !pos || !tmp) {
    free(key);
    free(pos);
    free(tmp);
    return fused_error("sort: out of memory for a dim of %lld elements", (long long)len);
  }
  for (int64_t j = 0; j < outer * inner; j++) {
    const int64_t start = j / inner * len * inner + j % inner;
    for (int64_t d = 0; d < len; d++) key[d] = x[start + d * inner];
    const int64_t *sorted = merge_sort(pos, tmp, key, len, descending);
    for (int64_t d = 0; d < len; d++) {
      v[start + d * inner] = key[sorted[d]];
      at[start + d * inner] = sorted[d] + 1;
    }
  }
  free(key);
  free(pos);
  free(tmp);
  return 0;
}
