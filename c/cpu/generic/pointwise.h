/* Unary ops on contiguous tensors; binary ops on operands of any strides into a contiguous out.
 * The maths is shared (c/maths/pointwise.h; int64's, c/maths/arithmetic.h). */
#if SCALAR_IS_FLOATING
#include "../../maths/pointwise.h"

/* One case per op of fused.h's list: the op is a compile-time constant inside each, so each
 * loop is specialised: apply_unary over vectors (simd.h). */
#define MAP(OP, ...)                                             \
  case OP:                                                       \
    PARALLEL_VEC_FOR(n, i, m, {                                  \
      vstore(y + i, apply_unary(OP, vload(x + i, m), alpha), m); \
    });                                                          \
    break;

static int unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha_) {
  const scalar_t *x = (const scalar_t *)in->data, alpha = (scalar_t)alpha_;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(in);
  switch (op) {
    FUSED_UNARY_OPS(MAP)
    default: return fused_error("unary: unknown op %d", (int)op);
  }
  return 0;
}
#undef MAP
#else
#include "../../maths/arithmetic.h"

/* Integers have neg, abs, sign and the rounding ops only (the API refuses the rest), element by
 * element. */
static int unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha) {
  const scalar_t *x = (const scalar_t *)in->data;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(in);
  PARALLEL_FOR(n, i, { y[i] = apply_unary_exact(op, x[i]); });
  return 0;
}
#endif

#define ZIP(OP, ...)                                              \
  case OP:                                                        \
    PARALLEL_FOR(n, i, { y[i] = apply_binary(OP, a[i], b[i]); }); \
    break;

/* A strided operand (a view, or a broadcast one with stride 0): row by row into the
 * contiguous out. */
#define ZIP_STRIDED(OP, ...)                                                                  \
  case OP:                                                                                    \
    do {                                                                                      \
      const scalar_t *ra = a + it.offset[0], *rb = b + it.offset[1];                          \
      const int64_t sa = it.inner_stride[0], sb = it.inner_stride[1];                         \
      for (int64_t i = 0; i < it.inner; i++) y[i] = apply_binary(OP, ra[i * sa], rb[i * sb]); \
      y += it.inner;                                                                          \
    } while (strided_iter_next(&it));                                                         \
    break;

#define ZIP_SCALAR(OP, ...)                                    \
  case OP:                                                     \
    PARALLEL_FOR(n, i, { y[i] = apply_binary(OP, a[i], s); }); \
    break;

static int binary(fused_binary_op op, fused_tensor *out, const fused_tensor *ta,
                  const fused_tensor *tb) {
  const scalar_t *a = (const scalar_t *)ta->data, *b = (const scalar_t *)tb->data;
  scalar_t *y = (scalar_t *)out->data;
  const int64_t n = fused_tensor_numel(out);
  if (fused_tensor_is_contiguous(ta) && fused_tensor_is_contiguous(tb)) {
    switch (op) {
      FUSED_BINARY_OPS(ZIP)
      default: return fused_error("binary: unknown op %d", (int)op);
    }
    return 0;
  }
  strided_iter it;
  strided_iter_init(&it, ta, tb, NULL);
  switch (op) {
    FUSED_BINARY_OPS(ZIP_STRIDED)
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
    FUSED_BINARY_OPS(ZIP_SCALAR)
    default: return fused_error("binary_scalar: unknown op %d", (int)op);
  }
  return 0;
}
#undef ZIP
#undef ZIP_STRIDED
#undef ZIP_SCALAR
