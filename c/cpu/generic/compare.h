/* The kernels every dtype has: fill (any strides) and comparisons into a bool tensor. */
#include "../../maths/compare.h"

static int fill(fused_tensor *t, double value) {
  const scalar_t v = SCALAR_OF(value);
  strided_iter it;
  strided_iter_init(&it, t, NULL, NULL);
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
#define COMPARE(OP, ...)                                           \
  case OP:                                                         \
    PARALLEL_FOR(n, i, { y[i] = apply_compare(OP, fused_value(a[i]), fused_value(b[i])); }); \
    break;

/* A strided operand (a view, or a broadcast one with stride 0): row by row. */
#define COMPARE_STRIDED(OP, ...)                                                               \
  case OP:                                                                                     \
    do {                                                                                       \
      const scalar_t *ra = a + it.offset[0], *rb = b + it.offset[1];                           \
      const int64_t sa = it.inner_stride[0], sb = it.inner_stride[1];                          \
      for (int64_t i = 0; i < it.inner; i++) y[i] = apply_compare(OP, fused_value(ra[i * sa]), fused_value(rb[i * sb])); \
      y += it.inner;                                                                           \
    } while (strided_iter_next(&it));                                                          \
    break;

#define COMPARE_SCALAR(OP, ...)                                 \
  case OP:                                                      \
    PARALLEL_FOR(n, i, { y[i] = apply_compare(OP, fused_value(a[i]), fused_value(s)); }); \
    break;

static int compare(fused_compare_op op, fused_tensor *out, const fused_tensor *ta,
                   const fused_tensor *tb) {
  const scalar_t *a = (const scalar_t *)ta->data, *b = (const scalar_t *)tb->data;
  bool *y = (bool *)out->data;
  const int64_t n = fused_tensor_numel(out);
  if (fused_tensor_is_contiguous(ta) && fused_tensor_is_contiguous(tb)) {
    switch (op) {
      FUSED_COMPARE_OPS(COMPARE)
      default: return fused_error("compare: unknown op %d", (int)op);
    }
    return 0;
  }
  strided_iter it;
  strided_iter_init(&it, ta, tb, NULL);
  switch (op) {
    FUSED_COMPARE_OPS(COMPARE_STRIDED)
    default: return fused_error("compare: unknown op %d", (int)op);
  }
  return 0;
}

static int compare_scalar(fused_compare_op op, fused_tensor *out, const fused_tensor *ta,
                          double scalar) {
  const scalar_t *a = (const scalar_t *)ta->data, s = SCALAR_OF(scalar);
  bool *y = (bool *)out->data;
  const int64_t n = fused_tensor_numel(out);
  switch (op) {
    FUSED_COMPARE_OPS(COMPARE_SCALAR)
    default: return fused_error("compare_scalar: unknown op %d", (int)op);
  }
  return 0;
}
#undef COMPARE
#undef COMPARE_STRIDED
#undef COMPARE_SCALAR
