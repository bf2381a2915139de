/* Optimizer updates, one pass over each parameter: the gradient, the state buffers and the
 * parameter are read and written once per element (c/maths/optim.h). Coefficients come in
 * double and are rounded to scalar_t once. Each case is its own loop, with buf and init
 * constant in it, so that it vectorises. */
#include "../../maths/optim.h"

static int sgd_step(fused_tensor *param, fused_tensor *momentum_buffer, const fused_tensor *grad,
                    double lr_, double momentum_, double weight_decay_, int32_t init_buffer) {
  scalar_t *p = (scalar_t *)param->data;
  scalar_t *buf = momentum_buffer ? (scalar_t *)momentum_buffer->data : NULL;
  const scalar_t *g = (const scalar_t *)grad->data;
  const scalar_t lr = (scalar_t)lr_, momentum = (scalar_t)momentum_, wd = (scalar_t)weight_decay_;
  const int64_t n = fused_tensor_numel(param);
  if (!buf) {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++) sgd_element(&p[i], NULL, g[i], lr, momentum, wd, false);
  } else if (init_buffer) {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++) sgd_element(&p[i], &buf[i], g[i], lr, momentum, wd, true);
  } else {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++) sgd_element(&p[i], &buf[i], g[i], lr, momentum, wd, false);
  }
  return 0;
}

static int rmsprop_step(fused_tensor *param, fused_tensor *square_avg,
                        fused_tensor *momentum_buffer, const fused_tensor *grad, double lr_,
                        double alpha_, double eps_, double momentum_, double weight_decay_) {
  scalar_t *p = (scalar_t *)param->data, *sq = (scalar_t *)square_avg->data;
  scalar_t *buf = momentum_buffer ? (scalar_t *)momentum_buffer->data : NULL;
  const scalar_t *g = (const scalar_t *)grad->data;
  const scalar_t lr = (scalar_t)lr_, alpha = (scalar_t)alpha_, eps = (scalar_t)eps_,
                 momentum = (scalar_t)momentum_, wd = (scalar_t)weight_decay_;
  const int64_t n = fused_tensor_numel(param);
  if (!buf) {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++)
      rmsprop_element(&p[i], &sq[i], NULL, g[i], lr, alpha, eps, momentum, wd);
  } else {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++)
      rmsprop_element(&p[i], &sq[i], &buf[i], g[i], lr, alpha, eps, momentum, wd);
  }
  return 0;
}

static int adam_step(fused_tensor *param, fused_tensor *exp_avg, fused_tensor *exp_avg_sq,
                     const fused_tensor *grad, double lr, double beta1_, double beta2_,
                     double eps_, double weight_decay_, int64_t step) {
  scalar_t *p = (scalar_t *)param->data, *m = (scalar_t *)exp_avg->data,
           *v = (scalar_t *)exp_avg_sq->data;
  const scalar_t *g = (const scalar_t *)grad->data;
  const scalar_t beta1 = (scalar_t)beta1_, beta2 = (scalar_t)beta2_, eps = (scalar_t)eps_,
                 wd = (scalar_t)weight_decay_;
  const scalar_t step_size = (scalar_t)(lr / (1 - pow(beta1_, (double)step)));
  const scalar_t correction2_sqrt = (scalar_t)sqrt(1 - pow(beta2_, (double)step));
  const int64_t n = fused_tensor_numel(param);
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
  for (int64_t i = 0; i < n; i++)
    adam_element(&p[i], &m[i], &v[i], g[i], step_size, correction2_sqrt, beta1, beta2, eps, wd);
  return 0;
}

/* Accumulated in double whatever scalar_t is, so that a float32 norm does not lose the small
 * squares of a large tensor. */
static int sum_squares(double *out, const fused_tensor *t) {
  const scalar_t *x = (const scalar_t *)t->data;
  const int64_t n = fused_tensor_numel(t);
  double acc = 0;
#pragma omp parallel for simd reduction(+ : acc) if (n > PARALLEL_MIN_ELEMENTS)
  for (int64_t i = 0; i < n; i++) acc += (double)x[i] * (double)x[i];
  *out = acc;
  return 0;
}
