/* Walks one or two tensors of the same shape in row-major order, a row (the innermost dim)
 * at a time, whatever their strides. Offsets are in elements. */
#ifndef FUSED_STRIDED_H
#define FUSED_STRIDED_H

#include "../fused.h"

typedef struct strided_iter {
  int32_t ndim;
  int64_t sizes[FUSED_MAX_DIMS], strides[2][FUSED_MAX_DIMS], index[FUSED_MAX_DIMS];
  int64_t offset[2];        /* of the current row's first element in each tensor */
  int64_t inner;            /* elements in a row */
  int64_t inner_stride[2];
} strided_iter;

/* b may be NULL: then offset[1] and inner_stride[1] stay 0. */
static inline void strided_iter_init(strided_iter *it, const fused_tensor *a,
                                     const fused_tensor *b) {
  it->ndim = a->ndim;
  for (int32_t d = 0; d < a->ndim; d++) {
    it->sizes[d] = a->sizes[d];
    it->strides[0][d] = a->strides[d];
    it->strides[1][d] = b ? b->strides[d] : 0;
    it->index[d] = 0;
  }
  it->offset[0] = it->offset[1] = 0;
  it->inner = a->sizes[a->ndim - 1];
  it->inner_stride[0] = it->strides[0][a->ndim - 1];
  it->inner_stride[1] = it->strides[1][a->ndim - 1];
}

/* Moves to the next row; returns 0 after the last. */
static inline int strided_iter_next(strided_iter *it) {
  for (int32_t d = it->ndim - 2; d >= 0; d--) {
    if (++it->index[d] < it->sizes[d]) {
      it->offset[0] += it->strides[0][d];
      it->offset[1] += it->strides[1][d];
      return 1;
    }
    it->offset[0] -= (it->sizes[d] - 1) * it->strides[0][d];
    it->offset[1] -= (it->sizes[d] - 1) * it->strides[1][d];
    it->index[d] = 0;
  }
  return 0;
}

#endif
