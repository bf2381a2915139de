/* Reductions along a dim, per output: the dim's len elements of output j of a contiguous tensor
 * seen as [outer, len, inner] are column(x, j)[d * inner], walked in order by both backends. */
#ifndef FUSED_MATHS_REDUCE_H
#define FUSED_MATHS_REDUCE_H

#include "arithmetic.h"

FUSED_GENERIC FUSED_HD const scalar_t *column_of(const scalar_t *x, int64_t j, int64_t len,
                                                 int64_t inner) {
  return x + j / inner * len * inner + j % inner;
}

FUSED_GENERIC FUSED_HD scalar_t column_prod(const scalar_t *column, int64_t len, int64_t inner) {
  scalar_t acc = 1;
  for (int64_t d = 0; d < len; d++) acc *= column[d * inner];
  return acc;
}

/* Whether x replaces the best so far: when it is more extreme, or a NaN where the best is not
 * (NaN propagates, as in PyTorch); ties keep the first. */
FUSED_GENERIC FUSED_HD bool replaces_extremum(scalar_t x, scalar_t best, int32_t largest) {
  if (is_nan(best)) return false;
  if (is_nan(x)) return true;
  return largest ? x > best : x < best;
}

/* The index (from 0) of the column's extreme element, which goes to *best. */
FUSED_GENERIC FUSED_HD int64_t column_extremum(const scalar_t *column, int64_t len, int64_t inner,
                                               int32_t largest, scalar_t *best) {
  int64_t best_d = 0;
  *best = column[0];
  for (int64_t d = 1; d < len; d++) {
    if (replaces_extremum(column[d * inner], *best, largest)) {
      *best = column[d * inner];
      best_d = d;
    }
  }
  return best_d;
}

#endif
