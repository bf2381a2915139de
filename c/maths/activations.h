/* Elementwise ops and their derivatives (fused_unary / fused_binary), and the activations the
 * LLTM uses. Every exp is of a non-positive argument. */
#ifndef FUSED_MATHS_ACTIVATIONS_H
#define FUSED_MATHS_ACTIVATIONS_H

#include "hd.h"

FUSED_GENERIC FUSED_HD scalar_t sigmoid_of(scalar_t z) {
  const scalar_t e = m_exp_nonpos(-m_abs(z));
  const scalar_t s = 1 / (1 + e);
  return z >= 0 ? s : e * s;
}

/* tanh|y| = -m / (2 + m) with m = expm1(-2|y|): accurate near 0, exactly 1 far out. */
FUSED_GENERIC FUSED_HD scalar_t tanh_of(scalar_t y) {
  const scalar_t m = m_expm1_nonpos(-2 * m_abs(y));
  return m_copysign(-m / (2 + m), y);
}

/* NaN fails both comparisons and comes out as itself. */
FUSED_GENERIC FUSED_HD scalar_t elu_of(scalar_t z, scalar_t alpha) {
  const scalar_t m = m_expm1_nonpos(z < 0 ? z : 0);
  return z <= 0 ? alpha * m : z;
}

/* ELU's derivative from its input z, and (alpha 1) from its output: exp(z) = elu(z) + 1. */
FUSED_GENERIC FUSED_HD scalar_t d_elu_of(scalar_t z, scalar_t alpha) {
  return z <= 0 ? alpha * m_exp_nonpos(z) : z > 0 ? 1 : z;
}
FUSED_GENERIC FUSED_HD scalar_t d_elu_from_output(scalar_t elu) { return elu > 0 ? 1 : elu + 1; }

FUSED_GENERIC FUSED_HD scalar_t d_sigmoid_from_output(scalar_t s) { return s * (1 - s); }
FUSED_GENERIC FUSED_HD scalar_t d_tanh_from_output(scalar_t t) { return 1 - t * t; }

/* alpha is ELU's; the API has rejected unknown ops. */
FUSED_GENERIC FUSED_HD scalar_t apply_unary(fused_unary_op op, scalar_t z, scalar_t alpha) {
  switch (op) {
    case FUSED_NEG: return -z;
    case FUSED_EXP: return m_exp(z);
    case FUSED_LOG: return m_log(z);
    case FUSED_TANH: return tanh_of(z);
    case FUSED_SIGMOID: return sigmoid_of(z);
    case FUSED_ELU: return elu_of(z, alpha);
    case FUSED_RELU: return z <= 0 ? 0 : z; /* NaN fails the test: relu(NaN) is NaN */
    case FUSED_SQRT: return m_sqrt(z);
    case FUSED_ABS: return m_abs(z);
    case FUSED_D_EXP: return m_exp(z);
    case FUSED_D_LOG: return 1 / z;
    case FUSED_D_TANH: return d_tanh_from_output(tanh_of(z));
    case FUSED_D_SIGMOID: return d_sigmoid_from_output(sigmoid_of(z));
    case FUSED_D_ELU: return d_elu_of(z, alpha);
    case FUSED_D_RELU: return z > 0 ? 1 : z <= 0 ? 0 : z;
    default: return 0;
  }
}

/* max and min propagate NaN. */
FUSED_GENERIC FUSED_HD scalar_t apply_binary(fused_binary_op op, scalar_t a, scalar_t b) {
  switch (op) {
    case FUSED_ADD: return a + b;
    case FUSED_SUB: return a - b;
    case FUSED_MUL: return a * b;
    case FUSED_DIV: return a / b;
    case FUSED_RSUB: return b - a;
    case FUSED_RDIV: return b / a;
    case FUSED_POW: return m_pow(a, b);
    case FUSED_MAX: return a > b || a != a ? a : b;
    case FUSED_MIN: return a < b || a != a ? a : b;
    default: return 0;
  }
}

#endif
