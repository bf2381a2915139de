/* One source for every dtype: each file below is compiled once per dtype with scalar_t defined
 * by c/cpu/kernels_<dtype>.c (and, for float32 and float64, the matching cpu_blas_gemm).
 * Functions are static, so every instantiation keeps the plain names of kernel_list.h; only
 * the table is exported. int64 gets the ANY_DTYPE, INDEX and ARITHMETIC kernels, bool,
 * bfloat16 and float16 the ANY_DTYPE and INDEX ones; their tables leave the rest NULL. <tgmath.h> picks expf or exp
 * from the argument's type. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/backend.h"
#include "../../core/check.h"
#include "../../core/error.h"
#include "../parallel.h"
#include "../strided.h"

/* A number (a double, an int64) as scalar_t: C's conversion, or the dtype's own (the 16-bit
 * types, whose values fused_value reads). */
#ifndef SCALAR_OF
#define SCALAR_OF(v) ((scalar_t)(v))
#endif

#include "convert.h"
#include "compare.h"
#include "select.h"
#include "index.h"
#include "nonzero.h"

#if SCALAR_IS_FLOATING
#include <cblas.h>
#include <tgmath.h>

#include "../gemm_choice.h"

/* The vectors of the capability this file is compiled for, the lanes of the shared maths
 * (c/maths/hd.h), and its transcendental functions: simd_math.h's exp and expm1 of arguments
 * <= 0, libm lane by lane for exp, log and sqrt of any (apply_unary's), libm for the scalars
 * (the optimizers' sqrt, apply_binary's pow). */
#include "../simd.h"
#include "../simd_math.h"
static inline vec vexp_libm(vec v) {
  for (int k = 0; k < VEC_LANES; k++) v[k] = exp(v[k]);
  return v;
}
static inline vec vlog_libm(vec v) {
  for (int k = 0; k < VEC_LANES; k++) v[k] = log(v[k]);
  return v;
}
static inline vec vsqrt_libm(vec v) {
  for (int k = 0; k < VEC_LANES; k++) v[k] = sqrt(v[k]);
  return v;
}
/* The rounding functions lane by lane: GCC makes each one vector instruction (roundps) where
 * the capability has it. */
#define LANEWISE(name, f)                                      \
  static inline vec name(vec v) {                              \
    for (int k = 0; k < VEC_LANES; k++) v[k] = f(v[k]);        \
    return v;                                                  \
  }
LANEWISE(vfloor_libm, floor)
LANEWISE(vceil_libm, ceil)
LANEWISE(vrint_libm, rint)
LANEWISE(vtrunc_libm, trunc)
#undef LANEWISE
#define m_exp vexp_libm
#define m_log vlog_libm
#define m_sqrt(x) _Generic((x), vec: vsqrt_libm, float: sqrtf, double: sqrt)(x)
#define m_floor vfloor_libm
#define m_ceil vceil_libm
#define m_rint vrint_libm
#define m_trunc vtrunc_libm
#define m_pow pow

#include "pointwise.h"
#include "reduce.h"
#include "reduce_dim.h"
#include "gemm.h"
#include "addmm.h"
#include "optim.h"
#include "loss.h"
#include "softmax.h"
#include "embedding.h"
#include "packed_gemm.h"
#include "rnn.h"
#include "sparse.h"
#include "scan.h"
#include "cumulative.h"
#include "sort.h"
#define CPU_KERNEL_LIST FUSED_KERNELS
#elif SCALAR_IS_ARITHMETIC
#define m_pow int64_pow /* the only integer dtype that computes (c/maths/arithmetic.h) */
#include "pointwise.h"
#include "reduce.h"
#include "reduce_dim.h"
#include "cumulative.h"
#include "sort.h"
#define CPU_KERNEL_LIST(X) FUSED_KERNELS_ANY_DTYPE(X) FUSED_KERNELS_ARITHMETIC(X) \
  FUSED_KERNELS_CPU_ONLY(X) FUSED_KERNELS_CPU_ONLY_ANY_DTYPE(X)
#else
#define CPU_KERNEL_LIST(X) FUSED_KERNELS_ANY_DTYPE(X) FUSED_KERNELS_CPU_ONLY_ANY_DTYPE(X)
#endif

/* The table is CPU_KERNELS_<capability>, e.g. fused_cpu_float32_kernels_avx2: the Makefile
 * compiles each kernels_<dtype>.c once per capability of c/cpu/capability.h with
 * -DFUSED_CPU_CAPABILITY=<name>, and capability.c picks one set at load. */
#define CPU_TABLE_NAME(table, capability) table##_##capability
#define CPU_TABLE(table, capability) CPU_TABLE_NAME(table, capability)
#define CPU_KERNEL_ENTRY(name, params) .name = name,
const fused_kernels CPU_TABLE(CPU_KERNELS, FUSED_CPU_CAPABILITY) = {
    CPU_KERNEL_LIST(CPU_KERNEL_ENTRY)};
