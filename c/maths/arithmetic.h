/* fused_binary's ops per element, and the unary ops that integers have (neg, abs, sign and the
 * rounding ops, which keep an integer), on both
 * backends and every dtype but bool. For int64 every op here is exact, and the API keeps
 * away the ones that are not defined for every pair of integers (division: by zero). */
#ifndef FUSED_MATHS_ARITHMETIC_H
#define FUSED_MATHS_ARITHMETIC_H

#include "hd.h"

/* Whether x is NaN (x != x); through a call, so that no compiler warns that an integer x never
 * is. */
FUSED_GENERIC FUSED_HD bool unequal(scalar_t a, scalar_t b) { return a != b; }
FUSED_GENERIC FUSED_HD bool is_nan(scalar_t x) { return unequal(x, x); }

/* a to the power b by squaring; a negative b gives the integer part of 1 / a^-b (0 unless a is
 * 1 or -1), as PyTorch's integer pow of two tensors. */
FUSED_HD int64_t int64_pow(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
  int64_t r = 1;
  for (; b; b >>= 1, a *= a)
    if (b & 1) r *= a;
  return r;
}
#if defined(__CUDACC__) || defined(FUSED_CUDA_EMULATED)
__host__ __device__ inline int64_t m_pow(int64_t a, int64_t b) { return int64_pow(a, b); }
#endif

/* Per element on both backends (neither runs these over vectors); maximum and minimum propagate
 * NaN. One case per op of FUSED_BINARY_OPS, and no default (-Werror=switch). */
FUSED_GENERIC FUSED_HD scalar_t apply_binary(fused_binary_op op, scalar_t a, scalar_t b) {
  switch (op) {
    case FUSED_ADD: return a + b;
    case FUSED_SUB: return a - b;
    case FUSED_MUL: return a * b;
    case FUSED_DIV: return a / b;
    case FUSED_RSUB: return b - a;
    case FUSED_RDIV: return b / a;
    case FUSED_POW: return m_pow(a, b);
    case FUSED_MAXIMUM: return a > b || is_nan(a) ? a : b;
    case FUSED_MINIMUM: return a < b || is_nan(a) ? a : b;
  }
  return 0;
}

/* The unary ops of integers, per element; the API refuses the others for them. */
FUSED_GENERIC FUSED_HD scalar_t apply_unary_exact(fused_unary_op op, scalar_t z) {
  switch (op) {
    case FUSED_NEG: return -z;
    case FUSED_ABS: return z < 0 ? -z : z;
    case FUSED_FLOOR: case FUSED_CEIL: case FUSED_ROUND: case FUSED_TRUNC: return z;
    case FUSED_SIGN: return (z > 0) - (z < 0);
    default: return 0;
  }
}

#endif
