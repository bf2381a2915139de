/* Elementwise ops: out, in and the other operand share shape, dtype and device; out is
 * contiguous, so are unary's and binary_scalar's input (binary's may have any strides). An
 * input may be out itself (each element is read before it is written), not part of it. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

/* fused.h's lists, as fused_unary_op_info_of and fused_binary_op_info_of give them. */
#define UNARY(id, name, integers, alpha) [id] = {#name, integers, alpha},
static const fused_unary_op_info unary_ops[] = {FUSED_UNARY_OPS(UNARY)};
#undef UNARY
_Static_assert(sizeof unary_ops / sizeof *unary_ops == FUSED_NUM_UNARY_OPS, "one row per op");
#define BINARY(id, name, integers, swapped) [id] = {#name, integers, swapped},
static const fused_binary_op_info binary_ops[] = {FUSED_BINARY_OPS(BINARY)};
#undef BINARY
_Static_assert(sizeof binary_ops / sizeof *binary_ops == FUSED_NUM_BINARY_OPS, "one row per op");

const fused_unary_op_info *fused_unary_op_info_of(int32_t op) {
  return op >= 0 && op < FUSED_NUM_UNARY_OPS ? &unary_ops[op] : NULL;
}

const fused_binary_op_info *fused_binary_op_info_of(int32_t op) {
  return op >= 0 && op < FUSED_NUM_BINARY_OPS ? &binary_ops[op] : NULL;
}

/* Integers have the ops whose result is an integer, defined for every operand (the lists'
 * integers column; their maths is c/maths/arithmetic.h's): neg, abs, sign, the rounding ops
 * and the binary ops but division, which the Lua layer computes in float32 (true division, as
 * PyTorch's). */
static int check_exact(const char *fn, const char *arg, const fused_tensor *t, int exact) {
  return exact ? 0 : check_floating(fn, arg, t);
}

static int check_operand(const char *fn, const char *arg, const fused_tensor *t,
                         const char *ref_arg, const fused_tensor *ref) {
  FUSED_TRY(check_like(fn, arg, t, ref_arg, ref));
  return check_contiguous(fn, arg, t);
}

int fused_unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha) {
  if ((unsigned)op >= FUSED_NUM_UNARY_OPS) return fused_error("unary: unknown op %d", (int)op);
  const char *fn = unary_ops[op].name;
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_operand(fn, "in", in, "out", out));
  FUSED_TRY(check_no_overlap(fn, "out", out, "in", in, 1));
  FUSED_TRY(check_exact(fn, "in", in, unary_ops[op].integers));
  FUSED_CALL_KERNEL(fn, "in", in, unary, op, out, in, alpha);
}

int fused_binary(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                 const fused_tensor *b) {
  if ((unsigned)op >= FUSED_NUM_BINARY_OPS) return fused_error("binary: unknown op %d", (int)op);
  const char *fn = binary_ops[op].name;
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_like(fn, "a", a, "out", out));
  FUSED_TRY(check_like(fn, "b", b, "a", a));
  FUSED_TRY(check_no_overlap(fn, "out", out, "a", a, 1));
  FUSED_TRY(check_no_overlap(fn, "out", out, "b", b, 1));
  FUSED_TRY(check_exact(fn, "a", a, binary_ops[op].integers));
  FUSED_CALL_KERNEL(fn, "a", a, binary, op, out, a, b);
}

int fused_binary_scalar(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                        double scalar) {
  if ((unsigned)op >= FUSED_NUM_BINARY_OPS)
    return fused_error("binary_scalar: unknown op %d", (int)op);
  const char *fn = binary_ops[op].name;
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_operand(fn, "a", a, "out", out));
  FUSED_TRY(check_no_overlap(fn, "out", out, "a", a, 1));
  FUSED_TRY(check_exact(fn, "a", a, binary_ops[op].integers));
  /* An integer's scalar is one of its values (the float paths skip the check's formatting). */
  if (!fused_dtype_info_of(a->scalar_type)->is_floating) {
    FUSED_TRY(fused_check_scalar(fn, "b", scalar, a->scalar_type));
    /* No integer is 2^-1: PyTorch refuses it too (the Lua op checks tensor exponents). */
    if (op == FUSED_POW && scalar < 0)
      return fused_error("%s: argument 'b' expected an exponent >= 0 for an integer tensor, got %g: "
                         "integers to negative integer powers are not allowed", fn, scalar);
  }
  FUSED_CALL_KERNEL(fn, "a", a, binary_scalar, op, out, a, scalar);
}
