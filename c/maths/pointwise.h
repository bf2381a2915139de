/* fused_unary's ops and their derivatives over lanes (hd.h), for float32 and float64; and
 * fused_binary's per element (arithmetic.h). */
#ifndef FUSED_MATHS_POINTWISE_H
#define FUSED_MATHS_POINTWISE_H

#include "activations.h"
#include "arithmetic.h"

/* One case per op of fused.h's FUSED_UNARY_OPS, and no default: -Werror=switch makes a row
 * without its case a compile error. alpha is ELU's; the API has rejected unknown ops. */
FUSED_GENERIC FUSED_HD lane_t apply_unary(fused_unary_op op, lane_t z, scalar_t alpha) {
  switch (op) {
    case FUSED_NEG: return -z;
    case FUSED_EXP: return m_exp(z);
    case FUSED_LOG: return m_log(z);
    case FUSED_TANH: return tanh_of(z);
    case FUSED_SIGMOID: return sigmoid_of(z);
    case FUSED_ELU: return elu_of(z, alpha);
    /* NaN fails the test: relu(NaN) is NaN */
    case FUSED_RELU: return lane_select(z <= 0, lane_splat(0), z);
    case FUSED_SQRT: return m_sqrt(z);
    case FUSED_ABS: return m_abs(z);
    case FUSED_FLOOR: return m_floor(z);
    case FUSED_CEIL: return m_ceil(z);
    case FUSED_ROUND: return m_rint(z); /* half to even, the default rounding mode */
    case FUSED_TRUNC: return m_trunc(z);
    /* NaN fails both tests: 0, as PyTorch's (0 < z) - (z < 0) */
    case FUSED_SIGN:
      return lane_select(z > 0, lane_splat(1), lane_splat(0)) -
             lane_select(z < 0, lane_splat(1), lane_splat(0));
    case FUSED_D_EXP: return m_exp(z);
    case FUSED_D_LOG: return 1 / z;
    case FUSED_D_TANH: return d_tanh_from_output(tanh_of(z));
    case FUSED_D_SIGMOID: return d_sigmoid_from_output(sigmoid_of(z));
    case FUSED_D_ELU: return d_elu_of(z, alpha);
    case FUSED_D_RELU:
      return lane_select(z > 0, lane_splat(1), lane_select(z <= 0, lane_splat(0), z));
  }
  return lane_splat(0);
}

#endif
