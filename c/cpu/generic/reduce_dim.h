/* Product, max and min along a dim of a contiguous tensor seen as [outer, len, inner]; the
 * results keep the dim with size 1. max and min give the first extreme value's index, counted
 * from 1; a NaN is the extreme value (as PyTorch propagates it). */
#include "../../maths/reduce.h"

static int prod_dim(fused_tensor *out, const fused_tensor *in, int32_t dim) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < outer * inner; j++)
    y[j] = column_prod(column_of(x, j, len, inner), len, inner);
  return 0;
}

static int extremum_dim(fused_tensor *values, fused_tensor *indices, const fused_tensor *in,
                        int32_t dim, int32_t largest) {
  int64_t outer, inner;
  outer_dim_inner(in, dim, &outer, &inner);
  const int64_t len = in->sizes[dim];
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *v = (scalar_t *)values->data;
  int64_t *at = indices ? (int64_t *)indices->data : NULL;
#pragma omp parallel for if (outer * len * inner > PARALLEL_MIN_ELEMENTS)
  for (int64_t j = 0; j < outer * inner; j++) {
    const int64_t best_d =
        column_extremum(column_of(x, j, len, inner), len, inner, largest, v + j);
    if (at) at[j] = best_d + 1;
  }
  return 0;
}
