/* Conversions between dtypes that C leaves undefined are checked instead: a floating value
 * becomes an int64 only when it fits (copy says where one is not).
 *
 * bfloat16 and float16 (fused.h's fused_bfloat16 and fused_float16, their bits): a value
 * becomes one rounded to nearest, ties to even, as PyTorch's conversions do, in one rounding
 * from any dtype (an int64 beyond 2^53 goes through a double rounded to odd, which keeps the
 * one rounding right); too large for float16 is an infinity, below its subnormals a signed
 * zero; NaN stays NaN (bfloat16's is 0x7fc0, float16's keeps the sign, as PyTorch's). Every
 * bfloat16 and float16 is a float exactly, so the conversions from them are exact.
 *   fused_value(x)       x as a number: a double for the 16-bit types, x itself for the others
 *   C:   fused_bfloat16_of(v), fused_float16_of(v)   from a number (int64, double, ...)
 *   C++: fused_convert<D>(v)                          v of any dtype as D */
#ifndef FUSED_MATHS_CONVERT_H
#define FUSED_MATHS_CONVERT_H

#include <stdint.h>
#include <string.h>

#include "hd.h"

FUSED_HD bool fits_int64(double v) {
  return v >= -0x1p63 && v < 0x1p63 && v == (double)(int64_t)v; /* NaN fails the first test */
}

FUSED_HD uint64_t fused_double_bits(double v) {
  union { double d; uint64_t u; } x;
  x.d = v;
  return x.u;
}

FUSED_HD double fused_double_of_bits(uint64_t u) {
  union { double d; uint64_t u; } x;
  x.u = u;
  return x.d;
}

/* v rounded to nearest even into a format of e exponent and m fraction bits: its bits. */
FUSED_HD uint16_t fused_round_to_16(double v, int e, int m, uint16_t nan_bits) {
  const uint64_t b = fused_double_bits(v), mag = b & 0x7fffffffffffffffULL;
  const uint32_t sign = (uint32_t)(b >> 63) << 15, inf = ((1u << e) - 1) << m;
  if (mag > 0x7ff0000000000000ULL) return nan_bits;
  if (mag == 0x7ff0000000000000ULL) return (uint16_t)(sign | inf);
  const int bias = (1 << (e - 1)) - 1, field = (int)(mag >> 52);
  /* mag is sig * 2^(exp - 52), sig with its leading bit (53 bits for a normal double). */
  const uint64_t sig = (mag & 0xfffffffffffffULL) | (field ? 1ULL << 52 : 0);
  const int target = (field ? field : 1) - 1023 + bias; /* the biased exponent in the format */
  int shift = 52 - m;
  if (target <= 0) shift += 1 - target; /* a subnormal of the format, or zero */
  if (shift > 60) return (uint16_t)sign;
  uint64_t kept = sig >> shift;
  const uint64_t rest = sig & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) kept++;
  /* A normal's kept holds its leading bit, which adds one to the exponent field: a carry out
   * of the fraction is the next exponent, as it should be. */
  const uint64_t bits = target > 0 ? ((uint64_t)(target - 1) << m) + kept : kept;
  return (uint16_t)(sign | (bits >= inf ? inf : (uint32_t)bits));
}

/* An int64 as a double rounded to odd: exact up to 2^53, beyond it the bits dropped leave
 * their trace in the last bit, so that rounding it again to 16 bits rounds once. */
FUSED_HD double fused_int64_rounded_to_odd(int64_t v) {
  const uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  int s = 0;
  while ((u >> s) >= (1ULL << 53)) s++;
  const double d = (double)((u >> s) | ((u & ((1ULL << s) - 1)) != 0)) * (double)(1ULL << s);
  return v < 0 ? -d : d;
}

/* compute = 'bfloat16''s rounding of a float32 (c/cpu/bf16.h, cuda/rnn.cu), bits to bits, the
 * result's low 16 bits zero: vcvtneps2bf16's, to nearest even, subnormals to zero (sign kept),
 * NaN made quiet (checked against the instruction over 10^8 bit patterns and the edge cases:
 * subnormals, the largest finite, infinities, NaNs). Unlike the dtype's conversion above, which
 * keeps bfloat16's subnormals, so that every CPU path and CUDA multiply the same operands.
 * Masks rather than branches, so that the CPU's loop over it vectorises. */
FUSED_HD uint32_t fused_bf16_compute_bits(uint32_t u) {
  const uint32_t nan = (u & 0x7fffffffu) > 0x7f800000u ? 0xffffffffu : 0;
  const uint32_t sub = (u & 0x7f800000u) == 0 ? 0xffffffffu : 0;
  const uint32_t r = (u + 0x7fffu + ((u >> 16) & 1)) & 0xffff0000u;
  const uint32_t q = (u | 0x400000u) & 0xffff0000u, z = u & 0x80000000u;
  return (nan & q) | (~nan & ((sub & z) | (~sub & r)));
}

FUSED_HD fused_bfloat16 fused_bfloat16_of_double(double v) {
  fused_bfloat16 r = {fused_round_to_16(v, 8, 7, 0x7fc0)};
  return r;
}
/* From a float, the same rounding on its bits (bfloat16 is float32's top half, so carrying the
 * rounding into the exponent is right, to infinity too): the common case, branch-free but NaN. */
FUSED_HD fused_bfloat16 fused_bfloat16_of_float(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  fused_bfloat16 r = {(uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? 0x7fc0
                                                                  : (u + 0x7fffu + ((u >> 16) & 1)) >> 16)};
  return r;
}
FUSED_HD fused_float16 fused_float16_of_double(double v) {
  fused_float16 r = {fused_round_to_16(v, 5, 10, (uint16_t)((fused_double_bits(v) >> 48 & 0x8000) | 0x7e00))};
  return r;
}
/* From a float, the same rounding on its bits: a normal float16 is the float rebiased (the
 * carry of the rounding goes into the exponent, to infinity too), a subnormal its significand
 * shifted to float16's unit, 2^-24. */
FUSED_HD fused_float16 fused_float16_of_float(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  const uint32_t sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
  uint32_t h;
  if (mag > 0x7f800000u) {
    h = 0x7e00u; /* NaN */
  } else if (mag >= 0x477ff000u) {
    h = 0x7c00u; /* 65520 and above: an infinity */
  } else if (mag >= 0x38800000u) { /* 2^-14 and above: a normal */
    const uint32_t r = mag - 0x38000000u;
    h = (r + 0xfffu + ((r >> 13) & 1)) >> 13;
  } else if (mag <= 0x33000000u) {
    h = 0; /* 2^-25 and below: a zero (2^-25 is a tie, to even) */
  } else {
    const uint32_t sig = (mag & 0x7fffffu) | 0x800000u, shift = 126 - (mag >> 23);
    const uint32_t kept = sig >> shift, rest = sig & ((1u << shift) - 1), half = 1u << (shift - 1);
    h = kept + (rest > half || (rest == half && (kept & 1)));
  }
  fused_float16 r = {(uint16_t)(sign | h)};
  return r;
}
FUSED_HD fused_bfloat16 fused_bfloat16_of_int64(int64_t v) {
  return fused_bfloat16_of_double(fused_int64_rounded_to_odd(v));
}
FUSED_HD fused_float16 fused_float16_of_int64(int64_t v) {
  return fused_float16_of_double(fused_int64_rounded_to_odd(v));
}
/* bfloat16's value is the float of its bits followed by 16 zero bits. */
FUSED_HD double fused_bfloat16_value(fused_bfloat16 x) {
  const uint32_t u = (uint32_t)x.bits << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
/* float16's value: its bits rebiased into a float's, by 112 (by 224 for infinities and NaN, to
 * float's 255); a subnormal as 2^-14 plus it, less 2^-14, exactly. Selects rather than branches,
 * so that the CPU's loop over it vectorises. */
FUSED_HD double fused_float16_value(fused_float16 x) {
  const uint32_t mag = (uint32_t)(x.bits & 0x7fffu) << 13, field = mag & 0x0f800000u;
  uint32_t u = mag + (field == 0x0f800000u ? 224u << 23 : field ? 112u << 23 : 113u << 23);
  float f;
  memcpy(&f, &u, sizeof f);
  f -= field ? 0.0f : 0x1p-14f;
  memcpy(&u, &f, sizeof u);
  u |= (uint32_t)(x.bits & 0x8000u) << 16;
  memcpy(&f, &u, sizeof f);
  return f;
}

#ifdef __cplusplus
#include <type_traits>
template <typename T> FUSED_HD T fused_value(T x) { return x; }
FUSED_HD double fused_value(fused_bfloat16 x) { return fused_bfloat16_value(x); }
FUSED_HD double fused_value(fused_float16 x) { return fused_float16_value(x); }
template <typename D, typename S> FUSED_HD D fused_convert(S v) {
  if constexpr (std::is_same<D, S>::value) {
    return v;
  } else if constexpr (std::is_same<D, fused_bfloat16>::value) {
    if constexpr (std::is_same<S, int64_t>::value) return fused_bfloat16_of_int64(v);
    else if constexpr (std::is_same<S, float>::value) return fused_bfloat16_of_float(v);
    else return fused_bfloat16_of_double((double)fused_value(v));
  } else if constexpr (std::is_same<D, fused_float16>::value) {
    if constexpr (std::is_same<S, int64_t>::value) return fused_float16_of_int64(v);
    else if constexpr (std::is_same<S, float>::value) return fused_float16_of_float(v);
    else return fused_float16_of_double((double)fused_value(v));
  } else {
    return (D)fused_value(v);
  }
}
#else
/* x must be an lvalue (the branches not chosen take its address, and read nothing). */
static inline double fused_bfloat16_value_at(const void *p) {
  fused_bfloat16 x;
  memcpy(&x, p, sizeof x);
  return fused_bfloat16_value(x);
}
static inline double fused_float16_value_at(const void *p) {
  fused_float16 x;
  memcpy(&x, p, sizeof x);
  return fused_float16_value(x);
}
#define fused_value(x)                                                                \
  _Generic((x), fused_bfloat16: fused_bfloat16_value_at(&(x)),                         \
           fused_float16: fused_float16_value_at(&(x)), default: (x))
#define fused_bfloat16_of(v)                                                           \
  _Generic((v), int64_t: fused_bfloat16_of_int64, float: fused_bfloat16_of_float,    \
           default: fused_bfloat16_of_double)(v)
#define fused_float16_of(v)                                                            \
  _Generic((v), int64_t: fused_float16_of_int64, float: fused_float16_of_float,      \
           default: fused_float16_of_double)(v)
#endif

#endif
