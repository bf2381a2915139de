/* The activations and their derivatives, over lanes (hd.h): fused_unary's (pointwise.h) and
 * the cells' (lltm.h, cells.h). Every exp is of a non-positive argument. */
#ifndef FUSED_MATHS_ACTIVATIONS_H
#define FUSED_MATHS_ACTIVATIONS_H

#include "hd.h"

FUSED_GENERIC FUSED_HD lane_t sigmoid_of(lane_t z) {
  const lane_t e = m_exp_nonpos(-m_abs(z));
  const lane_t s = 1 / (1 + e);
  return lane_select(z >= 0, s, e * s);
}

/* tanh|y| = -m / (2 + m) with m = expm1(-2|y|): accurate near 0, exactly 1 far out. */
FUSED_GENERIC FUSED_HD lane_t tanh_of(lane_t y) {
  const lane_t m = m_expm1_nonpos(-2 * m_abs(y));
  return m_copysign(-m / (2 + m), y);
}

/* NaN fails both comparisons and comes out as itself. */
FUSED_GENERIC FUSED_HD lane_t elu_of(lane_t z, scalar_t alpha) {
  const lane_t m = m_expm1_nonpos(lane_select(z < 0, z, lane_splat(0)));
  return lane_select(z <= 0, alpha * m, z);
}

/* ELU's derivative from its input z, and (alpha 1) from its output: exp(z) = elu(z) + 1. */
FUSED_GENERIC FUSED_HD lane_t d_elu_of(lane_t z, scalar_t alpha) {
  const lane_t e = m_exp_nonpos(lane_select(z <= 0, z, lane_splat(0)));
  return lane_select(z <= 0, alpha * e, lane_select(z > 0, lane_splat(1), z));
}
FUSED_GENERIC FUSED_HD lane_t d_elu_from_output(lane_t elu) {
  return lane_select(elu > 0, lane_splat(1), elu + 1);
}

FUSED_GENERIC FUSED_HD lane_t d_sigmoid_from_output(lane_t s) { return s * (1 - s); }
FUSED_GENERIC FUSED_HD lane_t d_tanh_from_output(lane_t t) { return 1 - t * t; }

#endif
