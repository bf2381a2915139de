/* Comparisons into a bool tensor, for every dtype. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

static const char *const compare_names[FUSED_NUM_COMPARE_OPS] = {
    [FUSED_EQ] = "eq", [FUSED_NE] = "ne", [FUSED_LT] = "lt",
    [FUSED_LE] = "le", [FUSED_GT] = "gt", [FUSED_GE] = "ge"};

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
  const char *fn = compare_names[op];
  FUSED_TRY(check_out(fn, out, a));
  FUSED_TRY(check_like(fn, "b", b, "a", a));
  FUSED_CALL_KERNEL(fn, a, compare, op, out, a, b);
}

int fused_compare_scalar(fused_compare_op op, fused_tensor *out, const fused_tensor *a,
                         double scalar) {
  if ((unsigned)op >= FUSED_NUM_COMPARE_OPS)
    return fused_error("compare_scalar: unknown op %d", (int)op);
  const char *fn = compare_names[op];
  FUSED_TRY(check_out(fn, out, a));
  FUSED_TRY(check_contiguous(fn, "a", a));
  FUSED_CALL_KERNEL(fn, a, compare_scalar, op, out, a, scalar);
}
