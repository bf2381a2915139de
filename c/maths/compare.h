/* Comparisons (fused_compare), for every dtype: IEEE's, so NaN compares unequal to all. */
#ifndef FUSED_MATHS_COMPARE_H
#define FUSED_MATHS_COMPARE_H

#include "hd.h"

/* One case per op of FUSED_COMPARE_OPS, and no default (-Werror=switch). */
FUSED_GENERIC FUSED_HD bool apply_compare(fused_compare_op op, scalar_t a, scalar_t b) {
  switch (op) {
    case FUSED_EQ: return a == b;
    case FUSED_NE: return a != b;
    case FUSED_LT: return a < b;
    case FUSED_LE: return a <= b;
    case FUSED_GT: return a > b;
    case FUSED_GE: return a >= b;
  }
  return false;
}

#endif
