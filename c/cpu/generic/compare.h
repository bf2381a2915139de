/* The kernels every dtype has: fill (any strides) and comparisons into a bool tensor. */
#include "../../maths/compare.h"

static int fill(fused_tensor *t, double value) {
  const scalar_t v = (scalar_t)value;
  strided_iter it;
  strided_iter_init(&it, t, NULL);
  if (fused_tensor_is_contiguous(t)) {
    scalar_t *x = (scalar_t *)t->data;
    int64_t n = fused_tensor_numel(t);
    PARALLEL_FOR(n, i, { x[i] = v; });
    return 0;
  }
  do {
    scalar_t *x = (scalar_t *)t->data + it.offset[0];
    for (int64_t i = 0; i < it.inner; i++) x[i * it.inner_stride[0]] = v;
  } while (strided_iter_next(&it));
  return 0;
}

/* The op is a compile-time constant inside each case, so each loop vectorises. */
#define COMPARE(OP, B)                                            \
  case OP:                                                        \
    PARALLEL_FOR(n, i, { y[i] = apply_compare(OP, a[i], (B)); }); \
    break

static int compare(fused_compare_op op, fused_tensor *out, const fused_tensor *ta,
                   const fused_tensor *tb) {
  const scalar_t *a = (const scalar_t *)ta->data, *b = (const scalar_t *)tb->data;
  bool *y = (bool *)out->data;
  const int64_t n = fused_tensor_numel(out);
  switch (op) {
    COMPARE(FUSED_EQ, b[i]); COMPARE(FUSED_NE, b[i]); COMPARE(FUSED_LT, b[i]);
    COMPARE(FUSED_LE, b[i]); COMPARE(FUSED_GT, b[i]); COMPARE(FUSED_GE, b[i]);
    default: return fused_error("compare: unknown op %d", (int)op);
  }
  return 0;
}

static int compare_scalar(fused_compare_op op, fused_tensor *out, const fused_tensor *ta,
                          double scalar) {
  const scalar_t *a = (const scalar_t *)ta->data, s = (scalar_t)scalar;
  bool *y = (bool *)out->data;
  const int64_t n = fused_tensor_numel(out);
  switch (op) {
    COMPARE(FUSED_EQ, s); COMPARE(FUSED_NE, s); COMPARE(FUSED_LT, s);
    COMPARE(FUSED_LE, s); COMPARE(FUSED_GT, s); COMPARE(FUSED_GE, s);
    default: return fused_error("compare_scalar: unknown op %d", (int)op);
  }
  return 0;
}
#undef COMPARE
