/* Cumulative sum or product along a dim of a contiguous tensor seen as [outer, len, inner], into
 * a contiguous out of its shape, from the first element or (reverse) from the last. Floats accumulate in double, as PyTorch's CPU does; int64 in
 * uint64, so that an overflow wraps (as PyTorch's) rather than being undefined. */
#if SCALAR_IS_FLOATING
typedef double cumulative_acc;
#else
typedef uint64_t cumulative_acc;
#endif

static int cumulative_dim(fused_tensor *out, const fused_tensor *in, int32_t dim,
                          int32_t product, int32_t reverse) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < outer * inner; j++) {
    const int64_t start = j / inner * len * inner + j % inner;
    cumulative_acc acc = product ? 1 : 0;
    for (int64_t d = 0; d < len; d++) {
      const int64_t at = start + (reverse ? len - 1 - d : d) * inner;
      acc = product ? acc * (cumulative_acc)x[at] : acc + (cumulative_acc)x[at];
      y[at] = (scalar_t)acc;
    }
  }
  return 0;
}
