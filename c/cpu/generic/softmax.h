/* Softmax, log-softmax and logsumexp along a dim of a contiguous tensor seen as [outer, len,
 * inner], and the backward of the first two from their output: one column of
 * c/maths/softmax.h per iteration. */
#include "../../maths/reduce.h"
#include "../../maths/softmax.h"

static int softmax_forward(fused_tensor *out, const fused_tensor *in, int32_t dim,
                           int32_t log_softmax) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < outer * inner; j++) {
    const int64_t at = column_of(x, j, len, inner) - x;
    softmax_column(y + at, x + at, len, inner, log_softmax);
  }
  return 0;
}

static int softmax_backward(fused_tensor *d_in, const fused_tensor *grad_out,
                            const fused_tensor *out, int32_t dim, int32_t log_softmax) {
  int64_t outer, inner;
  outer_dim_inner(out, dim, &outer, &inner);
  const int64_t len = out->sizes[dim];
  const scalar_t *y = (const scalar_t *)out->data;
  const scalar_t *g = (const scalar_t *)grad_out->data;
  scalar_t *dx = (scalar_t *)d_in->data;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < outer * inner; j++) {
    const int64_t at = column_of(y, j, len, inner) - y;
    softmax_backward_column(dx + at, g + at, y + at, len, inner, log_softmax);
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
  for (int64_t j = 0; j < outer * inner; j++)
    y[j] = column_logsumexp(column_of(x, j, len, inner), len, inner);
  return 0;
}
