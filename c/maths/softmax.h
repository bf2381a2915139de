/* Softmax, log-softmax and logsumexp of one column: the len elements at column[d * inner] of
 * a contiguous tensor seen as [outer, len, inner] (reduce.h's column_of), written once for
 * both backends, one column a CUDA thread or a CPU loop iteration. The column's max is
 * subtracted before exp, so inputs of +-1000 do not overflow; an infinite max is not (inf - inf
 * is NaN), as PyTorch's logsumexp: a column of -inf gives -inf, and NaN from softmax. exp and
 * log are picked by type: <tgmath.h> on the CPU, C++'s overloads under nvcc. */
#ifndef FUSED_MATHS_SOFTMAX_H
#define FUSED_MATHS_SOFTMAX_H

#include "hd.h"

/* The column's max where it is finite (max - max is 0 only then), else 0; 0 for an empty
 * column (len 0), which reads nothing: its logsumexp is log(0) = -inf, as PyTorch's. */
FUSED_GENERIC FUSED_HD scalar_t column_shift(const scalar_t *column, int64_t len, int64_t inner) {
  if (len == 0) return 0;
  scalar_t max = column[0];
  for (int64_t d = 1; d < len; d++) max = column[d * inner] > max ? column[d * inner] : max;
  return max - max == 0 ? max : (scalar_t)0;
}

FUSED_GENERIC FUSED_HD scalar_t column_sum_exp(const scalar_t *column, int64_t len,
                                               int64_t inner, scalar_t shift) {
  scalar_t sum = 0;
  for (int64_t d = 0; d < len; d++) sum += exp(column[d * inner] - shift);
  return sum;
}

FUSED_GENERIC FUSED_HD void softmax_column(scalar_t *y, const scalar_t *x, int64_t len,
                                           int64_t inner, int32_t log_softmax) {
  const scalar_t shift = column_shift(x, len, inner);
  const scalar_t sum = column_sum_exp(x, len, inner, shift);
  const scalar_t log_sum = log(sum);
  for (int64_t d = 0; d < len; d++) {
    const scalar_t z = x[d * inner] - shift;
    y[d * inner] = log_softmax ? z - log_sum : exp(z) / sum;
  }
}

/* From y = softmax(x): dx = y * (g - sum(g * y)); from y = log_softmax(x):
 * dx = g - exp(y) * sum(g). */
FUSED_GENERIC FUSED_HD void softmax_backward_column(scalar_t *dx, const scalar_t *g,
                                                    const scalar_t *y, int64_t len,
                                                    int64_t inner, int32_t log_softmax) {
  scalar_t dot = 0;
  for (int64_t d = 0; d < len; d++) dot += log_softmax ? g[d * inner] : g[d * inner] * y[d * inner];
  for (int64_t d = 0; d < len; d++) {
    const int64_t k = d * inner;
    dx[k] = log_softmax ? g[k] - exp(y[k]) * dot : y[k] * (g[k] - dot);
  }
}

FUSED_GENERIC FUSED_HD scalar_t column_logsumexp(const scalar_t *column, int64_t len,
                                                 int64_t inner) {
  const scalar_t shift = column_shift(column, len, inner);
  return shift + log(column_sum_exp(column, len, inner, shift));
}

#endif
