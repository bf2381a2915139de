/* Optimizer updates and the squared norm behind clip_grad_norm: argument checks, then the
 * device's kernel. */
#include <math.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* param is contiguous; each other tensor has its shape, dtype and device, contiguous. The
 * update writes param and the state (not grad), so an expanded one says so, not "contiguous". */
static int check_like_param(const char *fn, const char *arg, const fused_tensor *t,
                            const fused_tensor *param) {
  FUSED_TRY(check_like(fn, arg, t, "param", param));
  return check_contiguous(fn, arg, t);
}

static int check_state(const char *fn, const char *arg, const fused_tensor *t,
                       const fused_tensor *param) {
  FUSED_TRY(check_output(fn, arg, t));
  return check_like_param(fn, arg, t, param);
}

static int check_param(const char *fn, const fused_tensor *param, const fused_tensor *grad) {
  FUSED_TRY(check_output(fn, "param", param));
  FUSED_TRY(check_contiguous(fn, "param", param));
  return check_like_param(fn, "grad", grad, param);
}

static int check_hyper(const char *fn, const char *arg, double value, double low, double high,
                       const char *range) {
  if (value >= low && value <= high) return 0;
  return fused_error("%s: argument '%s' expected %s, got %g", fn, arg, range, value);
}

/* A momentum buffer like param, required when momentum is on. */
static int check_momentum_buffer(const char *fn, const fused_tensor *buffer, double momentum,
                                 const fused_tensor *param) {
  if (momentum > 0 && !buffer)
    return fused_error("%s: argument 'momentum_buffer' expected a tensor (momentum is %g), "
                       "got NULL", fn, momentum);
  return buffer ? check_state(fn, "momentum_buffer", buffer, param) : 0;
}

int fused_sgd_step(fused_tensor *param, fused_tensor *momentum_buffer, const fused_tensor *grad,
                   double lr, double momentum, double dampening, double weight_decay,
                   int32_t nesterov, int32_t init_buffer) {
  const char *fn = "sgd_step";
  FUSED_TRY(check_param(fn, param, grad));
  FUSED_TRY(check_hyper(fn, "lr", lr, 0, INFINITY, ">= 0"));
  FUSED_TRY(check_hyper(fn, "momentum", momentum, 0, 1, "in [0, 1]"));
  FUSED_TRY(check_hyper(fn, "dampening", dampening, 0, 1, "in [0, 1]"));
  FUSED_TRY(check_hyper(fn, "weight_decay", weight_decay, 0, INFINITY, ">= 0"));
  if (nesterov && (momentum == 0 || dampening != 0))
    return fused_error("%s: nesterov expected momentum > 0 and dampening 0, got momentum %g and "
                       "dampening %g", fn, momentum, dampening);
  FUSED_TRY(check_momentum_buffer(fn, momentum_buffer, momentum, param));
  if (momentum == 0) momentum_buffer = NULL;
  FUSED_TRY(check_outputs_apart(fn, 2, (fused_arg[]){{"param", param},
                                                    {"momentum_buffer", momentum_buffer}},
                                1, (fused_arg[]){{"grad", grad}}, -1, -1));
  FUSED_CALL_KERNEL(fn, "param", param, sgd_step, param, momentum_buffer, grad, lr, momentum,
                    dampening, weight_decay, nesterov, init_buffer);
}

int fused_rmsprop_step(fused_tensor *param, fused_tensor *square_avg,
                       fused_tensor *momentum_buffer, const fused_tensor *grad, double lr,
                       double alpha, double eps, double momentum, double weight_decay) {
  const char *fn = "rmsprop_step";
  FUSED_TRY(check_param(fn, param, grad));
  FUSED_TRY(check_state(fn, "square_avg", square_avg, param));
  FUSED_TRY(check_hyper(fn, "lr", lr, 0, INFINITY, ">= 0"));
  FUSED_TRY(check_hyper(fn, "alpha", alpha, 0, 1, "in [0, 1]"));
  FUSED_TRY(check_hyper(fn, "eps", eps, 0, INFINITY, ">= 0"));
  FUSED_TRY(check_hyper(fn, "momentum", momentum, 0, 1, "in [0, 1]"));
  FUSED_TRY(check_hyper(fn, "weight_decay", weight_decay, 0, INFINITY, ">= 0"));
  FUSED_TRY(check_momentum_buffer(fn, momentum_buffer, momentum, param));
  if (momentum == 0) momentum_buffer = NULL;
  FUSED_TRY(check_outputs_apart(fn, 3, (fused_arg[]){{"param", param}, {"square_avg", square_avg},
                                                    {"momentum_buffer", momentum_buffer}},
                                1, (fused_arg[]){{"grad", grad}}, -1, -1));
  FUSED_CALL_KERNEL(fn, "param", param, rmsprop_step, param, square_avg, momentum_buffer, grad, lr,
                    alpha, eps, momentum, weight_decay);
}

int fused_adam_step(fused_tensor *param, fused_tensor *exp_avg, fused_tensor *exp_avg_sq,
                    const fused_tensor *grad, double lr, double beta1, double beta2, double eps,
                    double weight_decay, int32_t decoupled, int64_t step) {
  const char *fn = "adam_step";
  FUSED_TRY(check_param(fn, param, grad));
  FUSED_TRY(check_state(fn, "exp_avg", exp_avg, param));
  FUSED_TRY(check_state(fn, "exp_avg_sq", exp_avg_sq, param));
  FUSED_TRY(check_hyper(fn, "lr", lr, 0, INFINITY, ">= 0"));
  /* beta < 1: the bias corrections divide by 1 - beta^step. */
  FUSED_TRY(check_hyper(fn, "beta1", beta1, 0, nextafter(1, 0), "in [0, 1)"));
  FUSED_TRY(check_hyper(fn, "beta2", beta2, 0, nextafter(1, 0), "in [0, 1)"));
  FUSED_TRY(check_hyper(fn, "eps", eps, 0, INFINITY, ">= 0"));
  FUSED_TRY(check_hyper(fn, "weight_decay", weight_decay, 0, INFINITY, ">= 0"));
  if (step < 1)
    return fused_error("%s: argument 'step' expected >= 1, got %lld", fn, (long long)step);
  FUSED_TRY(check_outputs_apart(fn, 3, (fused_arg[]){{"param", param}, {"exp_avg", exp_avg},
                                                    {"exp_avg_sq", exp_avg_sq}},
                                1, (fused_arg[]){{"grad", grad}}, -1, -1));
  FUSED_CALL_KERNEL(fn, "param", param, adam_step, param, exp_avg, exp_avg_sq, grad, lr, beta1, beta2,
                    eps, weight_decay, decoupled, step);
}

int fused_sum_squares(double *out, const fused_tensor *t) {
  const char *fn = "sum_squares";
  if (!out) return fused_error("%s: argument 'out' expected a pointer, got NULL", fn);
  FUSED_TRY(check_tensor(fn, "t", t));
  FUSED_TRY(check_contiguous(fn, "t", t));
  FUSED_CALL_KERNEL(fn, "t", t, sum_squares, out, t);
}
