/* Unary and binary ops on contiguous tensors, with the shared maths (c/maths/activations.h). */
#include "../../maths/activations.h"

/* The op is a compile-time constant inside each case, so each loop is specialised. The
 * activations and the cheap ops run over vectors (simd_math.h), lane for lane apply_unary's
 * maths; exp, log and sqrt call libm per element. */
#define MAP(OP)                                                              \
  case OP:                                                                   \
    PARALLEL_FOR(n, i, { y[i] = apply_unary(OP, x[i], alpha); });            \
    break
#define VMAP(OP, F)                                                          \
  case OP:                                                                   \
    PARALLEL_VEC_FOR(n, i, m, {                                              \
      const vec v = vload(x + i, m);                                         \
      vstore(y + i, F, m);                                                   \
    });                                                                      \
    break

static int unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha_) {
  const scalar_t *x = (const scalar_t *)in->data, alpha = (scalar_t)alpha_;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(in);
  switch (op) {
    MAP(FUSED_EXP); MAP(FUSED_LOG); MAP(FUSED_SQRT); MAP(FUSED_D_EXP);
    VMAP(FUSED_NEG, -v);
    VMAP(FUSED_TANH, vtanh(v));
    VMAP(FUSED_SIGMOID, vsigmoid(v));
    VMAP(FUSED_ELU, velu(v, alpha));
    VMAP(FUSED_RELU, vselect(v <= 0, vsplat(0), v)); /* NaN fails the test: relu(NaN) is NaN */
    VMAP(FUSED_ABS, vabs(v));
    VMAP(FUSED_D_LOG, 1 / v);
    VMAP(FUSED_D_TANH, vd_tanh_from_output(vtanh(v)));
    VMAP(FUSED_D_SIGMOID, vd_sigmoid_from_output(vsigmoid(v)));
    VMAP(FUSED_D_ELU, vd_elu(v, alpha));
    VMAP(FUSED_D_RELU, vselect(v > 0, vsplat(1), vselect(v <= 0, vsplat(0), v)));
    default: return fused_error("unary: unknown op %d", (int)op);
  }
  return 0;
}
#undef MAP
#undef VMAP

#define ZIP(OP, B)                                                \
  case OP:                                                        \
    PARALLEL_FOR(n, i, { y[i] = apply_binary(OP, a[i], (B)); });  \
    break

static int binary(fused_binary_op op, fused_tensor *out, const fused_tensor *ta,
                  const fused_tensor *tb) {
  const scalar_t *a = (const scalar_t *)ta->data, *b = (const scalar_t *)tb->data;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(out);
  switch (op) {
    ZIP(FUSED_ADD, b[i]); ZIP(FUSED_SUB, b[i]); ZIP(FUSED_MUL, b[i]); ZIP(FUSED_DIV, b[i]);
    ZIP(FUSED_RSUB, b[i]); ZIP(FUSED_RDIV, b[i]); ZIP(FUSED_POW, b[i]); ZIP(FUSED_MAX, b[i]);
    ZIP(FUSED_MIN, b[i]);
    default: return fused_error("binary: unknown op %d", (int)op);
  }
  return 0;
}

static int binary_scalar(fused_binary_op op, fused_tensor *out, const fused_tensor *ta,
                         double scalar) {
  const scalar_t *a = (const scalar_t *)ta->data, s = (scalar_t)scalar;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(out);
  switch (op) {
    ZIP(FUSED_ADD, s); ZIP(FUSED_SUB, s); ZIP(FUSED_MUL, s); ZIP(FUSED_DIV, s);
    ZIP(FUSED_RSUB, s); ZIP(FUSED_RDIV, s); ZIP(FUSED_POW, s); ZIP(FUSED_MAX, s);
    ZIP(FUSED_MIN, s);
    default: return fused_error("binary_scalar: unknown op %d", (int)op);
  }
  return 0;
}
#undef ZIP
