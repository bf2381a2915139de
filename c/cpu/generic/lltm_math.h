/* exp and expm1 of non-positive arguments on the CPU, written so that the loops calling them
 * vectorise: the m_exp_nonpos and m_expm1_nonpos of the shared maths (c/maths/hd.h), behind
 * sigmoid, tanh and ELU in the LLTM and the pointwise ops.
 *
 * At the shapes recurrent cells live at, glibc's scalar expf/expm1f/tanhf made a fused step
 * 2.6x slower than this (see TOOLCHAIN.md). Every exp here is of a non-positive argument, so
 * nothing overflows however saturated the gates are.
 *
 * exp(x) = 2^n (1 + p(r)), x = n ln2 + r, |r| <= ln2/2, p(r) = e^r - 1 by its Taylor series to
 * degree 7 (float) or 12 (double): truncation below 2e-8 and 5e-16 relative. Measured against
 * libm over [-120, 120]: float within 2.5 ulp (exp 1.2, ELU 1, sigmoid 2.5, tanh 2.4), double
 * within 8e-16 relative. */

#define LLTM_IS_FLOAT (sizeof(scalar_t) == sizeof(float))
/* exp(x) is a normal number down to here; below, the true results are denormal and the clamp
 * gives them as the smallest normal (absolute error < 1.2e-38 in float, 4e-308 in double). */
#define LLTM_EXP_MIN ((scalar_t)(LLTM_IS_FLOAT ? -87.3365 : -708.0))

/* e^r - 1 for |r| <= ln2/2, exact in relative terms down to r = 0 (Horner, 1/k! coefficients). */
static inline scalar_t lltm_expm1_reduced(scalar_t r) {
  scalar_t p = (scalar_t)(LLTM_IS_FLOAT ? 1.0 / 5040 : 1.0 / 479001600);
  if (!LLTM_IS_FLOAT) {
    p = p * r + (scalar_t)(1.0 / 39916800);
    p = p * r + (scalar_t)(1.0 / 3628800);
    p = p * r + (scalar_t)(1.0 / 362880);
    p = p * r + (scalar_t)(1.0 / 40320);
    p = p * r + (scalar_t)(1.0 / 5040);
  }
  p = p * r + (scalar_t)(1.0 / 720);
  p = p * r + (scalar_t)(1.0 / 120);
  p = p * r + (scalar_t)(1.0 / 24);
  p = p * r + (scalar_t)(1.0 / 6);
  p = p * r + (scalar_t)0.5;
  p = p * r + 1;
  return p * r;
}

/* 2^n from shifted = n + 1.5 2^mantissa (lltm_reduce), whose low bits hold the integer n:
 * moved into the exponent bits in unsigned arithmetic, which is defined for any input. (A
 * float-to-int conversion of n was undefined for NaN, and the negative shift that followed
 * aborted under UBSan.) */
static inline scalar_t lltm_pow2(scalar_t shifted) {
  if (LLTM_IS_FLOAT) {
    union { float f; uint32_t i; } u = {.f = (float)shifted};
    u.i = (u.i - 0x4B400000u + 127u) << 23; /* 0x4B400000: the bits of 1.5 2^23 */
    return u.f;
  }
  union { double d; uint64_t i; } u = {.d = shifted};
  u.i = (u.i - 0x4338000000000000u + 1023u) << 52; /* the bits of 1.5 2^52 */
  return (scalar_t)u.d;
}

/* x = n ln2 + r; ln2 in two parts so that r is exact enough for double (Cody and Waite).
 * Adding and subtracting 1.5 2^mantissa rounds to an integer: unlike floor(), it vectorises
 * without -fno-trapping-math. *scale receives 2^n. NaN passes the clamp into r, so the
 * result is NaN whatever bits 2^n gets. */
static inline scalar_t lltm_reduce(scalar_t x, scalar_t *scale) {
  const scalar_t round = (scalar_t)(LLTM_IS_FLOAT ? 0x1.8p23 : 0x1.8p52);
  x = x < LLTM_EXP_MIN ? LLTM_EXP_MIN : x;
  const scalar_t shifted = x * (scalar_t)1.4426950408889634 + round, n = shifted - round;
  *scale = lltm_pow2(shifted);
  return (x - n * (scalar_t)0.693145751953125) - n * (scalar_t)1.4286068203094173e-06;
}

/* exp(x) for x <= 0, and NaN for NaN. */
static inline scalar_t lltm_exp(scalar_t x) {
  scalar_t s, r = lltm_reduce(x, &s);
  return s + s * lltm_expm1_reduced(r);
}

/* exp(x) - 1 for x <= 0 (NaN for NaN): 2^n - 1 + 2^n p(r), which is p(r) itself when n = 0
 * (|x| small). */
static inline scalar_t lltm_expm1(scalar_t x) {
  scalar_t s, r = lltm_reduce(x, &s);
  return (s - 1) + s * lltm_expm1_reduced(r);
}
