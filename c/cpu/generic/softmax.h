/* Softmax, log-softmax and logsumexp along a dim of a contiguous tensor seen as [outer, len,
 * inner], and the backward of the first two from their output. Each column's max is subtracted
 * before exp, so inputs of +-1000 do not overflow; an infinite max is not (it would make
 * inf - inf), as PyTorch's logsumexp: a column of -inf gives -inf, and NaN from softmax. */

static inline scalar_t column_shift(const scalar_t *column, int64_t len, int64_t inner) {
  scalar_t max = column[0];
  for (int64_t d = 1; d < len; d++) max = column[d * inner] > max ? column[d * inner] : max;
  return isinf(max) ? 0 : max;
}

static inline scalar_t column_sum_exp(const scalar_t *column, int64_t len, int64_t inner,
                                      scalar_t shift) {
  scalar_t sum = 0;
  for (int64_t d = 0; d < len; d++) sum += exp(column[d * inner] - shift);
  return sum;
}

static inline int64_t column_start(int64_t j, int64_t len, int64_t inner) {
  return j / inner * len * inner + j % inner;
}

static int softmax_forward(fused_tensor *out, const fused_tensor *in, int32_t dim,
                           int32_t log_softmax) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < outer * inner; j++) {
    const int64_t at = column_start(j, len, inner);
    const scalar_t shift = column_shift(x + at, len, inner);
    const scalar_t sum = column_sum_exp(x + at, len, inner, shift);
    const scalar_t log_sum = log(sum);
    for (int64_t d = 0; d < len; d++) {
      const scalar_t z = x[at + d * inner] - shift;
      y[at + d * inner] = log_softmax ? z - log_sum : exp(z) / sum;
    }
  }
  return 0;
}

/* From y = softmax(x): d_in = y * (g - sum(g * y)); from y = log_softmax(x):
 * d_in = g - exp(y) * sum(g). */
static int softmax_backward(fused_tensor *d_in, const fused_tensor *grad_out,
                            const fused_tensor *out, int32_t dim, int32_t log_softmax) {
  int64_t outer, inner;
  outer_dim_inner(out, dim, &outer, &inner);
  const int64_t len = out->sizes[dim];
  const scalar_t *g = (const scalar_t *)grad_out->data;
  const scalar_t *y = (const scalar_t *)out->data;
  scalar_t *dx = (scalar_t *)d_in->data;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < outer * inner; j++) {
    const int64_t at = column_start(j, len, inner);
    scalar_t dot = 0;
    for (int64_t d = 0; d < len; d++) {
      const int64_t k = at + d * inner;
      dot += log_softmax ? g[k] : g[k] * y[k];
    }
    for (int64_t d = 0; d < len; d++) {
      const int64_t k = at + d * inner;
      dx[k] = log_softmax ? g[k] - exp(y[k]) * dot : y[k] * (g[k] - dot);
    }
  }
  return 0;
}

static int logsumexp_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < outer * inner; j++) {
    const scalar_t *column = x + column_start(j, len, inner);
    const scalar_t shift = column_shift(column, len, inner);
    y[j] = shift + log(column_sum_exp(column, len, inner, shift));
  }
  return 0;
}
