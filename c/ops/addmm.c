/* Matrix products: out = beta * bias + alpha * a @ b. */
#include "../core/backend.h"
#include "../core/check.h"
#include "../core/error.h"
#include "../maths/gemm.h"

/* BLAS reads a matrix that is row-major or the transpose of one, with any leading stride. */
static int check_gemm_operand(const char *fn, const char *arg, const fused_tensor *t,
                              const fused_tensor *out) {
  FUSED_TRY(check_tensor(fn, arg, t));
  FUSED_TRY(check_ndim(fn, arg, t, 2));
  FUSED_TRY(check_same_dtype_device(fn, arg, t, "out", out));
  const int64_t rows = t->sizes[0], cols = t->sizes[1];
  gemm_layout layout;
  if (!gemm_layout_of(t, &layout)) return check_contiguous(fn, arg, t);
  if (rows > INT32_MAX || cols > INT32_MAX || layout.ld > INT32_MAX)
    return fused_error("%s: argument '%s' is too large for BLAS (%lld x %lld)", fn, arg,
                       (long long)rows, (long long)cols);
  return 0;
}

int fused_addmm(fused_tensor *out, const fused_tensor *bias, const fused_tensor *a,
                const fused_tensor *b, double beta, double alpha) {
  const char *fn = bias ? "addmm" : "matmul";
  FUSED_TRY(check_output(fn, "out", out));
  FUSED_TRY(check_ndim(fn, "out", out, 2));
  FUSED_TRY(check_contiguous(fn, "out", out));
  FUSED_TRY(check_gemm_operand(fn, "a", a, out));
  FUSED_TRY(check_gemm_operand(fn, "b", b, out));
  if (b->sizes[0] != a->sizes[1])
    return fused_error("%s: argument 'b' expected %lld rows (the columns of 'a', shape [%lld, "
                       "%lld]), got shape [%lld, %lld]", fn, (long long)a->sizes[1],
                       (long long)a->sizes[0], (long long)a->sizes[1], (long long)b->sizes[0],
                       (long long)b->sizes[1]);
  const int64_t want[2] = {a->sizes[0], b->sizes[1]};
  FUSED_TRY(check_shape(fn, "out", out, 2, want));
  FUSED_TRY(check_no_overlap(fn, "out", out, "a", a, 0));
  FUSED_TRY(check_no_overlap(fn, "out", out, "b", b, 0));
  if (bias) {
    FUSED_TRY(check_tensor(fn, "bias", bias));
    FUSED_TRY(check_same_dtype_device(fn, "bias", bias, "out", out));
    FUSED_TRY(check_contiguous(fn, "bias", bias));
    if (bias->ndim == 1) FUSED_TRY(check_shape(fn, "bias", bias, 1, want + 1));
    else FUSED_TRY(check_shape(fn, "bias", bias, 2, want));
    /* The kernel accumulates into out when bias is out itself. */
    FUSED_TRY(check_no_overlap(fn, "out", out, "bias", bias, 1));
  }
  FUSED_CALL_KERNEL(fn, "a", a, addmm, out, bias, a, b, beta, alpha);
}
