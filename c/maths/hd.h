/* The per-element maths of both backends: each activation, cell step and update written once
 * here, and called by the CPU (c/cpu/generic/) and CUDA (cuda/) alike.
 *
 * The steps are written over a lane type, lane_t: under nvcc a scalar (templates over
 * scalar_t, host and device, one element a thread); on the CPU the vector `vec` of
 * c/cpu/simd.h (VEC_LANES elements at once), so that a CPU row is a VEC_FOR loop over the very
 * step a CUDA thread runs. The optimizer updates and apply_binary, which no backend runs over
 * vectors, are written over scalar_t (a struct over it is FUSED_GENERIC struct s { ... } and
 * its type FUSED_GENERIC_TYPE(struct s)). What each backend defines before these headers:
 *   lane_t                          the lane type
 *   lane_select(mask, a, b)         mask ? a : b per lane, mask a comparison of lanes
 *   lane_splat(x)                   x in every lane
 *   lane_load(p, m) lane_store(p, v, m)    the first m lanes at p (m is 1 under nvcc)
 *   m_abs m_copysign m_exp m_log m_sqrt m_sin m_cos   of lanes (m_sqrt of scalars too), any
 *                                   argument
 *   m_floor m_ceil m_rint m_trunc   of lanes (m_rint: to nearest, half to even)
 *   m_exp_nonpos m_expm1_nonpos     of lanes, arguments <= 0 only (sigmoid, tanh and ELU need
 *                                   no others, so nothing overflows)
 *   m_pow                           of scalars
 * CUDA: the helpers and m_ functions below (expf or exp by type). The CPU: simd.h's
 * helpers, simd_math.h's exp and expm1 polynomial, libm lane by lane for the rest
 * (generic/kernels.h); fused_simd.h gives the same to extensions, for float and double. */
#ifndef FUSED_MATHS_HD_H
#define FUSED_MATHS_HD_H

#include <stdbool.h>

#include "../fused.h"

#if defined(__CUDACC__) || defined(FUSED_CUDA_EMULATED) /* nvcc, or the CUDA emulator */
#define FUSED_HD __host__ __device__ inline
#define FUSED_GENERIC template <typename scalar_t>
#define FUSED_GENERIC_TYPE(name) name<scalar_t>
#define lane_t scalar_t
#define lane_splat(x) ((scalar_t)(x))
template <typename T> __host__ __device__ inline T lane_select(bool mask, T a, T b) {
  return mask ? a : b;
}
template <typename T> __host__ __device__ inline T lane_load(const T *p, int64_t) { return *p; }
template <typename T> __host__ __device__ inline void lane_store(T *p, T v, int64_t) { *p = v; }
/* The transcendental functions, picked by type so that float code never calls a double
 * function nor the reverse (fminf on doubles is how the tutorial's kernel went wrong). CUDA's
 * exp serves the non-positive arguments too. Here, not in cuda/, so that an extension's cell
 * compiled for CUDA (fused_cell_cuda.h) calls the same ones. */
#include <math.h>
#define FUSED_CUDA_MATHS(name, f, d)                                  \
  __host__ __device__ inline float name(float x) { return f(x); }     \
  __host__ __device__ inline double name(double x) { return d(x); }
FUSED_CUDA_MATHS(m_exp, expf, exp)
FUSED_CUDA_MATHS(m_exp_nonpos, expf, exp)
FUSED_CUDA_MATHS(m_expm1_nonpos, expm1f, expm1)
FUSED_CUDA_MATHS(m_log, logf, log)
FUSED_CUDA_MATHS(m_log1p, log1pf, log1p)
FUSED_CUDA_MATHS(m_sqrt, sqrtf, sqrt)
FUSED_CUDA_MATHS(m_sin, sinf, sin)
FUSED_CUDA_MATHS(m_cos, cosf, cos)
FUSED_CUDA_MATHS(m_abs, fabsf, fabs)
FUSED_CUDA_MATHS(m_floor, floorf, floor)
FUSED_CUDA_MATHS(m_ceil, ceilf, ceil)
FUSED_CUDA_MATHS(m_rint, rintf, rint)
FUSED_CUDA_MATHS(m_trunc, truncf, trunc)
#undef FUSED_CUDA_MATHS
__host__ __device__ inline float m_pow(float x, float y) { return powf(x, y); }
__host__ __device__ inline double m_pow(double x, double y) { return pow(x, y); }
__host__ __device__ inline float m_copysign(float x, float y) { return copysignf(x, y); }
__host__ __device__ inline double m_copysign(double x, double y) { return copysign(x, y); }
#else
/* Always inlined: a step's vectors, its outputs included, then stay in registers. */
#define FUSED_HD static inline __attribute__((always_inline))
#define FUSED_GENERIC
#define FUSED_GENERIC_TYPE(name) name
#endif

#endif
