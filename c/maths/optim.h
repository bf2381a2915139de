/* The optimizer updates per element, PyTorch's formulas in its order of operations (fused.h).
 * p is the parameter, g its gradient; a NULL buf means no momentum. Coefficients arrive
 * rounded to scalar_t; Adam's bias corrections are computed once per step on the host. */
#ifndef FUSED_MATHS_OPTIM_H
#define FUSED_MATHS_OPTIM_H

#include "hd.h"

/* init: the first step with momentum, buf = d. */
FUSED_GENERIC FUSED_HD void sgd_element(scalar_t *p, scalar_t *buf, scalar_t g, scalar_t lr,
                                        scalar_t momentum, scalar_t wd, bool init) {
  const scalar_t d = g + wd * *p;
  if (!buf) {
    *p -= lr * d;
    return;
  }
  *buf = init ? d : momentum * *buf + d;
  *p -= lr * *buf;
}

FUSED_GENERIC FUSED_HD void rmsprop_element(scalar_t *p, scalar_t *sq, scalar_t *buf, scalar_t g,
                                            scalar_t lr, scalar_t alpha, scalar_t eps,
                                            scalar_t momentum, scalar_t wd) {
  const scalar_t d = g + wd * *p;
  *sq = alpha * *sq + (1 - alpha) * d * d;
  if (!buf) {
    *p -= lr * d / (m_sqrt(*sq) + eps);
    return;
  }
  *buf = momentum * *buf + d / (m_sqrt(*sq) + eps);
  *p -= lr * *buf;
}

/* step_size = lr / (1 - beta1^t), correction2_sqrt = sqrt(1 - beta2^t). */
FUSED_GENERIC FUSED_HD void adam_element(scalar_t *p, scalar_t *m, scalar_t *v, scalar_t g,
                                         scalar_t step_size, scalar_t correction2_sqrt,
                                         scalar_t beta1, scalar_t beta2, scalar_t eps,
                                         scalar_t wd) {
  const scalar_t d = g + wd * *p;
  *m = beta1 * *m + (1 - beta1) * d;
  *v = beta2 * *v + (1 - beta2) * d * d;
  *p -= step_size * *m / (m_sqrt(*v) / correction2_sqrt + eps);
}

#endif
