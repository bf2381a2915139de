/* Optimizer updates, one pass over each parameter: the gradient, the state buffers and the
 * parameter are read and written once per element (c/maths/optim.h). Coefficients come in
 * double and are rounded to scalar_t once. Each case is its own loop, with buf and init
 * constant in it, so that it vectorises. */
#include "../../maths/optim.h"

static int sgd_step(fused_tensor *param, fused_tensor *momentum_buffer, const fused_tensor *grad,
                    double lr_, double momentum_, double dampening, double weight_decay_,
                    int32_t nesterov_, int32_t init_buffer) {
  scalar_t *p = (scalar_t *)param->data;
  scalar_t *buf = momentum_buffer ? (scalar_t *)momentum_buffer->data : NULL;
  const scalar_t *g = (const scalar_t *)grad->data;
  const scalar_t lr = (scalar_t)lr_, momentum = (scalar_t)momentum_,
                 undamped = (scalar_t)(1 - dampening), wd = (scalar_t)weight_decay_;
  const bool nesterov = nesterov_ != 0;
  const int64_t n = fused_tensor_numel(param);
  if (!buf) {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++)
      sgd_element(&p[i], NULL, g[i], lr, momentum, undamped, wd, false, false);
  } else if (init_buffer) {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++)
      sgd_element(&p[i], &buf[i], g[i], lr, momentum, undamped, wd, nesterov, true);
  } else {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++)
      sgd_element(&p[i], &buf[i], g[i], lr, momentum, undamped, wd, nesterov, false);
  }
  return 0;
}

static int rmsprop_step(fused_tensor *param, fused_tensor *square_avg,
                        fused_tensor *momentum_buffer, const fused_tensor *grad, double lr_,
                        double alpha_, double eps_, double momentum_, double weight_decay_) {
  scalar_t *p = (scalar_t *)param->data, *sq = (scalar_t *)square_avg->data;
  scalar_t *buf = momentum_buffer ? (scalar_t *)momentum_buffer->data : NULL;
  const scalar_t *g = (const scalar_t *)grad->data;
  const scalar_t lr = (scalar_t)lr_, alpha = (scalar_t)alpha_,
                 one_minus_alpha = (scalar_t)(1 - alpha_), eps = (scalar_t)eps_,
                 momentum = (scalar_t)momentum_, wd = (scalar_t)weight_decay_;
  const int64_t n = fused_tensor_numel(param);
  if (!buf) {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++)
      rmsprop_element(&p[i], &sq[i], NULL, g[i], lr, alpha, one_minus_alpha, eps, momentum, wd);
  } else {
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
    for (int64_t i = 0; i < n; i++)
      rmsprop_element(&p[i], &sq[i], &buf[i], g[i], lr, alpha, one_minus_alpha, eps, momentum,
                      wd);
  }
  return 0;
}

static int adam_step(fused_tensor *param, fused_tensor *exp_avg, fused_tensor *exp_avg_sq,
                     const fused_tensor *grad, double lr, double beta1, double beta2, double eps,
                     double weight_decay, int32_t decoupled, int64_t step) {
  scalar_t *p = (scalar_t *)param->data, *m = (scalar_t *)exp_avg->data,
           *v = (scalar_t *)exp_avg_sq->data;
  const scalar_t *g = (const scalar_t *)grad->data;
  const struct adam_coefficients k =
      adam_coefficients_of(lr, beta1, beta2, eps, weight_decay, decoupled != 0, step);
  const int64_t n = fused_tensor_numel(param);
#pragma omp parallel for simd if (n > PARALLEL_MIN_ELEMENTS)
  for (int64_t i = 0; i < n; i++) adam_element(&p[i], &m[i], &v[i], g[i], k);
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
