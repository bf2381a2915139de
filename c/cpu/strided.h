/* Walks up to three tensors of the same shape in row-major order, a row (the innermost dim)
 * at a time, whatever their strides (a broadcast operand has stride 0). Offsets are in
 * elements. Also how a contiguous tensor splits around a dim, for the kernels along one. */
#ifndef FUSED_STRIDED_H
#define FUSED_STRIDED_H

#include "../fused.h"

enum { STRIDED_MAX_OPERANDS = 3 };

typedef struct strided_iter {
  int32_t ndim;
  int64_t sizes[FUSED_MAX_DIMS], strides[STRIDED_MAX_OPERANDS][FUSED_MAX_DIMS];
  int64_t index[FUSED_MAX_DIMS];
  int64_t offset[STRIDED_MAX_OPERANDS]; /* of the current row's first element in each tensor */
  int64_t inner;                        /* elements in a row */
  int64_t inner_stride[STRIDED_MAX_OPERANDS];
} strided_iter;

/* a's shape is walked; b and c may be NULL: then their offsets and strides stay 0. A 0-d a is
 * one row of one element; an empty a one row of none (inner 0), so that a do-while over the
 * rows reads nothing. */
static inline void strided_iter_init(strided_iter *it, const fused_tensor *a,
                                     const fused_tensor *b, const fused_tensor *c) {
  const fused_tensor *ts[STRIDED_MAX_OPERANDS] = {a, b, c};
  const int32_t last = a->ndim - 1;
  int empty = 0;
  it->ndim = a->ndim;
  for (int32_t d = 0; d < a->ndim; d++) {
    it->sizes[d] = a->sizes[d];
    empty |= a->sizes[d] == 0;
    for (int k = 0; k < STRIDED_MAX_OPERANDS; k++) it->strides[k][d] = ts[k] ? ts[k]->strides[d] : 0;
    it->index[d] = 0;
  }
  it->inner = empty ? 0 : last < 0 ? 1 : a->sizes[last];
  for (int k = 0; k < STRIDED_MAX_OPERANDS; k++) {
    it->offset[k] = 0;
    it->inner_stride[k] = last < 0 ? 0 : it->strides[k][last];
  }
}

/* Moves to the next row; returns 0 after the last. */
static inline int strided_iter_next(strided_iter *it) {
  for (int32_t d = it->ndim - 2; d >= 0; d--) {
    if (++it->index[d] < it->sizes[d]) {
      for (int k = 0; k < STRIDED_MAX_OPERANDS; k++) it->offset[k] += it->strides[k][d];
      return 1;
    }
    for (int k = 0; k < STRIDED_MAX_OPERANDS; k++)
      it->offset[k] -= (it->sizes[d] - 1) * it->strides[k][d];
    it->index[d] = 0;
  }
  return 0;
}

/* A contiguous tensor seen as [outer, sizes[dim], inner] around dim. */
static inline void outer_dim_inner(const fused_tensor *t, int32_t dim, int64_t *outer,
                                   int64_t *inner) {
  *outer = *inner = 1;
  for (int32_t d = 0; d < dim; d++) *outer *= t->sizes[d];
  for (int32_t d = dim + 1; d < t->ndim; d++) *inner *= t->sizes[d];
}

#endif
