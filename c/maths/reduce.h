/* Which element a max or min reduction keeps: x replaces the best so far when it is more
 * extreme, or a NaN where the best is not (NaN propagates, as in PyTorch); ties keep the first. */
#ifndef FUSED_MATHS_REDUCE_H
#define FUSED_MATHS_REDUCE_H

#include "hd.h"

FUSED_GENERIC FUSED_HD bool replaces_extremum(scalar_t x, scalar_t best, int32_t largest) {
  if (best != best) return false;
  if (x != x) return true;
  return largest ? x > best : x < best;
}

#endif
