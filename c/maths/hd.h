/* The per-element maths that the CPU and CUDA backends share: small inline functions, each
 * written once here and called by both backends (c/cpu/generic/ and cuda/).
 *
 * Written over scalar_t: C includes these headers once per dtype with scalar_t defined (as
 * c/cpu/generic/ is), nvcc sees templates over scalar_t, host and device. The transcendental
 * functions are the backend's, declared before these headers are included:
 *   m_exp m_log m_sqrt m_pow m_abs m_copysign    any argument
 *   m_exp_nonpos m_expm1_nonpos                  arguments <= 0 only (sigmoid, tanh and ELU
 *                                                need no others, so nothing overflows)
 * The CPU gives libm's and its vector exp (c/cpu/simd_math.h), CUDA its own. */
#ifndef FUSED_MATHS_HD_H
#define FUSED_MATHS_HD_H

#include <stdbool.h>

#include "../fused.h"

#if defined(__CUDACC__) || defined(FUSED_CUDA_EMULATED) /* nvcc, or the CUDA emulator */
#define FUSED_HD __host__ __device__ inline
#define FUSED_GENERIC template <typename scalar_t>
#else
#define FUSED_HD static inline
#define FUSED_GENERIC
#endif

#endif
