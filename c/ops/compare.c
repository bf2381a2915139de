/* Comparisons into a bool tensor, for every dtype. */
#include <math.h>

#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* fused.h's list, as fused_compare_op_info_of gives it. */
#define INFO(id, name, swapped) [id] = {#name, swapped},
static const fused_compare_op_info compare_ops[] = {FUSED_COMPARE_OPS(INFO)};
#undef INFO
_Static_assert(sizeof compare_ops / sizeof *compare_ops == FUSED_NUM_COMPARE_OPS,
               "one row per op");

const fused_compare_op_info *fused_compare_op_info_of(int32_t op) {
  return op >= 0 && op < FUSED_NUM_COMPARE_OPS ? &compare_ops[op] : NULL;
}

/* out: bool, a's shape and device, contiguous. */
static int check_out(const char *fn, const fused_tensor *out, const fused_tensor *a) {
  FUSED_TRY(check_tensor(fn, "a", a));
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_dtype(fn, "out", out, FUSED_BOOL));
  FUSED_TRY(check_same_device(fn, "out", out, "a", a));
  FUSED_TRY(check_shape(fn, "out", out, a->ndim, a->sizes));
  return check_contiguous(fn, "out", out);
}

int fused_compare(fused_compare_op op, fused_tensor *out, const fused_tensor *a,
                  const fused_tensor *b) {
  if ((unsigned)op >= FUSED_NUM_COMPARE_OPS)
    return fused_error("compare: unknown op %d", (int)op);
  const char *fn = compare_ops[op].name;
  FUSED_TRY(check_out(fn, out, a));
  FUSED_TRY(check_like(fn, "b", b, "a", a));
  FUSED_CALL_KERNEL(fn, "a", a, compare, op, out, a, b);
}

/* An integer a (int64: lo -2^63, end 2^63; bool: 0, 2) against a double scalar, exactly, as
 * PyTorch compares them: rounding the scalar to a's dtype would make {0, 1, 2}:eq(0.5) true at
 * 0 and :lt(1e300) false everywhere, and a in double would round int64s above 2^53. Instead the
 * scalar becomes an integer in [lo, end) and the op one that answers alike for every integer a
 * (a < 0.5 is a <= 0, a > 0.5 is a > 0); or, where the answer is the same for every a (NaN,
 * beyond the range, eq with a fraction), that answer, 0 or 1; -1 otherwise. */
static int integer_compare(fused_compare_op *op, double *scalar, double lo, double end) {
  const double s = *scalar, f = floor(s);
  if (s != s) return *op == FUSED_NE;
  if (s < lo) return *op == FUSED_NE || *op == FUSED_GT || *op == FUSED_GE;
  if (f >= end) return *op == FUSED_NE || *op == FUSED_LT || *op == FUSED_LE;
  if (f != s) { /* a fraction, above f: no integer equals it */
    switch (*op) {
      case FUSED_EQ: return 0;
      case FUSED_NE: return 1;
      case FUSED_LT: case FUSED_LE: *op = FUSED_LE; break;
      default: *op = FUSED_GT; break;
    }
    *scalar = f;
  }
  return -1;
}

int fused_compare_scalar(fused_compare_op op, fused_tensor *out, const fused_tensor *a,
                         double scalar) {
  if ((unsigned)op >= FUSED_NUM_COMPARE_OPS)
    return fused_error("compare_scalar: unknown op %d", (int)op);
  const char *fn = compare_ops[op].name;
  FUSED_TRY(check_out(fn, out, a));
  FUSED_TRY(check_contiguous(fn, "a", a));
  int answer = -1;
  if (a->scalar_type == FUSED_INT64) answer = integer_compare(&op, &scalar, -0x1p63, 0x1p63);
  if (a->scalar_type == FUSED_BOOL) answer = integer_compare(&op, &scalar, 0, 2);
  if (answer >= 0) FUSED_CALL_KERNEL(fn, "out", out, fill, out, answer);
  FUSED_CALL_KERNEL(fn, "a", a, compare_scalar, op, out, a, scalar);
}
