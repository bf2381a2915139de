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

/* 1 with *layout filled when BLAS can read t as it is, else 0 (t needs :contiguous()). An
 * empty operand, whatever its strides (a 0×n column view is contiguous yet neither form), is
 * read as row-major with BLAS's least ld, max(1, cols): BLAS never reads it but refuses a
 * smaller ld and then writes nothing, not even beta·C. */
static inline int gemm_layout_of(const fused_tensor *t, gemm_layout *layout) {
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  if (rows == 0 || cols == 0) {
    layout->transposed = 0;
    layout->ld = cols > 1 ? cols : 1;
    return 1;
  }
  if ((t->strides[1] == 1 || cols == 1) && (rows == 1 || t->strides[0] >= cols)) {
    layout->transposed = 0;
    layout->ld = rows == 1 ? cols : t->strides[0];
    return 1;
  }
  if ((t->strides[0] == 1 || rows == 1) && (cols == 1 || t->strides[1] >= rows)) {
    layout->transposed = 1;
    layout->ld = cols == 1 ? rows : t->strides[1];
    return 1;
  }
  return 0;
}

#endif
