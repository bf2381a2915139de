/* Elementwise ops: out, in and the other operand share shape, dtype and device; out is
 * contiguous, so are unary's and binary_scalar's input (binary's may have any strides). An
 * input may be out itself (each element is read before it is written), not part of it. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"

static const char *const unary_names[FUSED_NUM_UNARY_OPS] = {
    [FUSED_NEG] = "neg", [FUSED_EXP] = "exp", [FUSED_LOG] = "log", [FUSED_TANH] = "tanh",
    [FUSED_SIGMOID] = "sigmoid", [FUSED_ELU] = "elu", [FUSED_RELU] = "relu",
    [FUSED_SQRT] = "sqrt", [FUSED_ABS] = "abs", [FUSED_FLOOR] = "floor", [FUSED_CEIL] = "ceil",
    [FUSED_ROUND] = "round", [FUSED_TRUNC] = "trunc", [FUSED_SIGN] = "sign", [FUSED_D_EXP] = "d_exp", [FUSED_D_LOG] = "d_log",
    [FUSED_D_TANH] = "d_tanh", [FUSED_D_SIGMOID] = "d_sigmoid", [FUSED_D_ELU] = "d_elu",
    [FUSED_D_RELU] = "d_relu"};

static const char *const binary_names[FUSED_NUM_BINARY_OPS] = {
    [FUSED_ADD] = "add", [FUSED_SUB] = "sub", [FUSED_MUL] = "mul", [FUSED_DIV] = "div",
    [FUSED_RSUB] = "rsub", [FUSED_RDIV] = "rdiv", [FUSED_POW] = "pow", [FUSED_MAX] = "max",
    [FUSED_MIN] = "min"};

/* Integers have the ops whose result is an integer, defined for every operand (c/maths/
 * arithmetic.h): neg, abs, sign, the rounding ops and the binary ops but division, which the Lua layer computes in
 * float32 (true division, as PyTorch's). */
static int check_exact(const char *fn, const char *arg, const fused_tensor *t, int exact) {
  if (exact || fused_dtype_info_of(t->scalar_type)->is_floating) return 0;
  return fused_error("%s: argument '%s' expected a floating dtype (float32 or float64), got %s",
                     fn, arg, dtype_name(t->scalar_type));
}

static int check_operand(const char *fn, const char *arg, const fused_tensor *t,
                         const char *ref_arg, const fused_tensor *ref) {
  FUSED_TRY(check_like(fn, arg, t, ref_arg, ref));
  return check_contiguous(fn, arg, t);
}

int fused_unary(fused_unary_op op, fused_tensor *out, const fused_tensor *in, double alpha) {
  if ((unsigned)op >= FUSED_NUM_UNARY_OPS) return fused_error("unary: unknown op %d", (int)op);
  const char *fn = unary_names[op];
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_operand(fn, "input", in, "out", out));
  FUSED_TRY(check_no_overlap(fn, "out", out, "input", in, 1));
  FUSED_TRY(check_exact(fn, "input", in, op == FUSED_NEG || op == FUSED_ABS || op == FUSED_SIGN ||
                                             (op >= FUSED_FLOOR && op <= FUSED_TRUNC)));
  FUSED_CALL_KERNEL(fn, "input", in, unary, op, out, in, alpha);
}

int fused_binary(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                 const fused_tensor *b) {
  if ((unsigned)op >= FUSED_NUM_BINARY_OPS) return fused_error("binary: unknown op %d", (int)op);
  const char *fn = binary_names[op];
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_like(fn, "a", a, "out", out));
  FUSED_TRY(check_like(fn, "b", b, "a", a));
  FUSED_TRY(check_no_overlap(fn, "out", out, "a", a, 1));
  FUSED_TRY(check_no_overlap(fn, "out", out, "b", b, 1));
  FUSED_TRY(check_exact(fn, "a", a, op != FUSED_DIV && op != FUSED_RDIV));
  FUSED_CALL_KERNEL(fn, "a", a, binary, op, out, a, b);
}

int fused_binary_scalar(fused_binary_op op, fused_tensor *out, const fused_tensor *a,
                        double scalar) {
  if ((unsigned)op >= FUSED_NUM_BINARY_OPS)
    return fused_error("binary_scalar: unknown op %d", (int)op);
  const char *fn = binary_names[op];
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_operand(fn, "a", a, "out", out));
  FUSED_TRY(check_no_overlap(fn, "out", out, "a", a, 1));
  FUSED_TRY(check_exact(fn, "a", a, op != FUSED_DIV && op != FUSED_RDIV));
  /* An integer's scalar is one of its values (the float paths skip the check's formatting). */
  if (!fused_dtype_info_of(a->scalar_type)->is_floating)
    FUSED_TRY(fused_check_scalar(fn, "b", scalar, a->scalar_type));
  FUSED_CALL_KERNEL(fn, "a", a, binary_scalar, op, out, a, scalar);
}
