/* The optimizer updates per element, PyTorch's formulas in its order of operations (fused.h).
 * p is the parameter, g its gradient; a NULL buf means no momentum. Every coefficient, 1 - beta
 * included, is computed in double once per step on the host and arrives rounded to scalar_t
 * once, as PyTorch passes its Python floats: 1 - beta computed from a float32 beta would be off
 * by 1e-5 of itself (0.00099998713 for beta 0.999). */
#ifndef FUSED_MATHS_OPTIM_H
#define FUSED_MATHS_OPTIM_H

#include <math.h>

#include "hd.h"

/* init: the first step with momentum, buf = d (undamped, as PyTorch); undamped = 1 - dampening;
 * nesterov: the step is d + momentum * buf instead of buf. */
FUSED_GENERIC FUSED_HD void sgd_element(scalar_t *p, scalar_t *buf, scalar_t g, scalar_t lr,
                                        scalar_t momentum, scalar_t undamped, scalar_t wd,
                                        bool nesterov, bool init) {
  const scalar_t d = g + wd * *p;
  if (!buf) {
    *p -= lr * d;
    return;
  }
  *buf = init ? d : momentum * *buf + undamped * d;
  *p -= lr * (nesterov ? d + momentum * *buf : *buf);
}

FUSED_GENERIC FUSED_HD void rmsprop_element(scalar_t *p, scalar_t *sq, scalar_t *buf, scalar_t g,
                                            scalar_t lr, scalar_t alpha, scalar_t one_minus_alpha,
                                            scalar_t eps, scalar_t momentum, scalar_t wd) {
  const scalar_t d = g + wd * *p;
  *sq = alpha * *sq + one_minus_alpha * d * d;
  if (!buf) {
    *p -= lr * d / (m_sqrt(*sq) + eps);
    return;
  }
  *buf = momentum * *buf + d / (m_sqrt(*sq) + eps);
  *p -= lr * *buf;
}

/* Adam's coefficients: step_size = lr / (1 - beta1^t), correction2_sqrt = sqrt(1 - beta2^t);
 * AdamW's decay = 1 - lr * weight_decay scales p first (1 for Adam, whose wd is L2 instead). */
FUSED_GENERIC struct adam_coefficients {
  scalar_t step_size, correction2_sqrt, beta1, one_minus_beta1, beta2, one_minus_beta2, eps, wd,
      decay;
};

/* On the host, once per step. */
FUSED_GENERIC static inline FUSED_GENERIC_TYPE(struct adam_coefficients)
    adam_coefficients_of(double lr, double beta1, double beta2, double eps, double weight_decay,
                         bool decoupled, int64_t step) {
  FUSED_GENERIC_TYPE(struct adam_coefficients) k = {
      (scalar_t)(lr / (1 - pow(beta1, (double)step))), (scalar_t)sqrt(1 - pow(beta2, (double)step)),
      (scalar_t)beta1, (scalar_t)(1 - beta1), (scalar_t)beta2, (scalar_t)(1 - beta2),
      (scalar_t)eps, (scalar_t)(decoupled ? 0 : weight_decay),
      (scalar_t)(decoupled ? 1 - lr * weight_decay : 1)};
  return k;
}

FUSED_GENERIC FUSED_HD void adam_element(scalar_t *p, scalar_t *m, scalar_t *v, scalar_t g,
                                         FUSED_GENERIC_TYPE(struct adam_coefficients) k) {
  *p *= k.decay;
  const scalar_t d = g + k.wd * *p;
  *m = k.beta1 * *m + k.one_minus_beta1 * d;
  *v = k.beta2 * *v + k.one_minus_beta2 * d * d;
  *p -= k.step_size * *m / (m_sqrt(*v) / k.correction2_sqrt + k.eps);
}

#endif
