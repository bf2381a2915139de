/* Which matrix BLAS sees in a 2-D operand view: the rule that fused_addmm checks and the CPU
 * (OpenBLAS) and CUDA (cuBLAS) kernels follow. Host code. */
#ifndef FUSED_MATHS_GEMM_H
#define FUSED_MATHS_GEMM_H

#include <stdint.h>

#include "../fused.h"

typedef struct gemm_layout {
  int transposed; /* 0: row-major (stride 1 along columns); 1: the transpose of a row-major */
  int64_t ld;     /* the leading dimension of that row-major matrix */
} gemm_layout;

/* 1 with *layout filled when BLAS can read t as it is, else 0 (t needs :contiguous()). BLAS
 * wants ld >= 1 even for a matrix with no columns (an empty operand, whose ld it never uses). */
static inline int gemm_layout_of(const fused_tensor *t, gemm_layout *layout) {
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  if ((t->strides[1] == 1 || cols == 1) && (rows == 1 || t->strides[0] >= cols)) {
    layout->transposed = 0;
    layout->ld = rows == 1 ? cols : t->strides[0];
    if (layout->ld < 1) layout->ld = 1;
    return 1;
  }
  if ((t->strides[0] == 1 || rows == 1) && (cols == 1 || t->strides[1] >= rows)) {
    layout->transposed = 1;
    layout->ld = cols == 1 ? rows : t->strides[1];
    if (layout->ld < 1) layout->ld = 1;
    return 1;
  }
  return 0;
}

#endif
