/* fused's CPU vectors and their maths for extensions (docs/extending.md): c/cpu/simd.h and
 * c/cpu/simd_math.h, which fused's own kernels include once per dtype, included here for
 * float and double in one file, so that one FUSED_CELL_FORWARD body serves both. fused_ext.h
 * includes this; FUSED_CELL_FORWARD/BACKWARD bodies have `vec` (and scalar_t) in scope:
 *
 *   VEC_FOR(H, j, m, { vstore(out + j, vsigmoid(vload(s + j, m)), m); })
 *
 * Each name below is the float instance (vsigmoid_f32) or the double one (vsigmoid_f64),
 * chosen by the type of its first argument; vsplat, vlanes, VEC_FOR and VEC_LANES take
 * scalar_t and `vec` from the scope they are used in. The vectors are as wide as the flags
 * allow (simd.h): fused.ext compiles with those of the capability fused runs. C only. */
#ifndef FUSED_SIMD_H
#define FUSED_SIMD_H

/* While the two headers are read, each name they define becomes name_f32, then name_f64. */
#define FUSED_SIMD_NAME(name) FUSED_SIMD_PASTE(name, FUSED_SIMD_DTYPE)
#define FUSED_SIMD_PASTE(name, dtype) FUSED_SIMD_PASTE_(name, dtype)
#define FUSED_SIMD_PASTE_(name, dtype) name##_##dtype
#define vec FUSED_SIMD_NAME(vec)
#define lane_bits FUSED_SIMD_NAME(lane_bits)
#define ubits FUSED_SIMD_NAME(ubits)
#define vmask FUSED_SIMD_NAME(vmask)
#define vload FUSED_SIMD_NAME(vload)
#define vstore FUSED_SIMD_NAME(vstore)
#define vselect FUSED_SIMD_NAME(vselect)
#define vabs FUSED_SIMD_NAME(vabs)
#define vcopysign FUSED_SIMD_NAME(vcopysign)
#define vexpm1_reduced FUSED_SIMD_NAME(vexpm1_reduced)
#define vexp_reduce FUSED_SIMD_NAME(vexp_reduce)
#define vexp_nonpos FUSED_SIMD_NAME(vexp_nonpos)
#define vexpm1_nonpos FUSED_SIMD_NAME(vexpm1_nonpos)
#define exp_nonpos FUSED_SIMD_NAME(exp_nonpos)
#define expm1_nonpos FUSED_SIMD_NAME(expm1_nonpos)
#define vsigmoid FUSED_SIMD_NAME(vsigmoid)
#define vtanh FUSED_SIMD_NAME(vtanh)
#define velu FUSED_SIMD_NAME(velu)
#define vd_elu FUSED_SIMD_NAME(vd_elu)
#define vd_elu_from_output FUSED_SIMD_NAME(vd_elu_from_output)
#define vd_sigmoid_from_output FUSED_SIMD_NAME(vd_sigmoid_from_output)
#define vd_tanh_from_output FUSED_SIMD_NAME(vd_tanh_from_output)

#define scalar_t float
#define FUSED_SIMD_DTYPE f32
#include "cpu/simd.h"
#include "cpu/simd_math.h"
#undef scalar_t
#undef FUSED_SIMD_DTYPE

#define scalar_t double
#define FUSED_SIMD_DTYPE f64
#include "cpu/simd.h"
#include "cpu/simd_math.h"
#undef scalar_t
#undef FUSED_SIMD_DTYPE

#undef vec
#undef lane_bits
#undef ubits
#undef vmask
#undef vload
#undef vstore
#undef vselect
#undef vabs
#undef vcopysign
#undef vexpm1_reduced
#undef vexp_reduce
#undef vexp_nonpos
#undef vexpm1_nonpos
#undef exp_nonpos
#undef expm1_nonpos
#undef vsigmoid
#undef vtanh
#undef velu
#undef vd_elu
#undef vd_elu_from_output
#undef vd_sigmoid_from_output
#undef vd_tanh_from_output

/* The first n lanes at p (float or double), the others zero; vstore writes v's first n. */
#define vload(p, n) _Generic(*(p), float: vload_f32, double: vload_f64)(p, n)
#define vstore(p, v, n) _Generic((v), vec_f32: vstore_f32, vec_f64: vstore_f64)(p, v, n)
/* mask ? a : b per lane, mask a comparison of vectors. */
#define vselect(mask, a, b) _Generic((a), vec_f32: vselect_f32, vec_f64: vselect_f64)(mask, a, b)
#define vabs(v) _Generic((v), vec_f32: vabs_f32, vec_f64: vabs_f64)(v)
#define vcopysign(v, sign) _Generic((v), vec_f32: vcopysign_f32, vec_f64: vcopysign_f64)(v, sign)
/* exp and expm1 of arguments <= 0, per lane and of one scalar. */
#define vexp_nonpos(v) _Generic((v), vec_f32: vexp_nonpos_f32, vec_f64: vexp_nonpos_f64)(v)
#define vexpm1_nonpos(v) _Generic((v), vec_f32: vexpm1_nonpos_f32, vec_f64: vexpm1_nonpos_f64)(v)
#define exp_nonpos(x) _Generic((x), float: exp_nonpos_f32, double: exp_nonpos_f64)(x)
#define expm1_nonpos(x) _Generic((x), float: expm1_nonpos_f32, double: expm1_nonpos_f64)(x)
/* The activations of fused's cells, and their derivatives from their outputs. */
#define vsigmoid(v) _Generic((v), vec_f32: vsigmoid_f32, vec_f64: vsigmoid_f64)(v)
#define vtanh(v) _Generic((v), vec_f32: vtanh_f32, vec_f64: vtanh_f64)(v)
#define velu(v, alpha) _Generic((v), vec_f32: velu_f32, vec_f64: velu_f64)(v, alpha)
#define vd_elu(v, alpha) _Generic((v), vec_f32: vd_elu_f32, vec_f64: vd_elu_f64)(v, alpha)
#define vd_elu_from_output(v)                                                                  \
  _Generic((v), vec_f32: vd_elu_from_output_f32, vec_f64: vd_elu_from_output_f64)(v)
#define vd_sigmoid_from_output(v)                                                              \
  _Generic((v), vec_f32: vd_sigmoid_from_output_f32, vec_f64: vd_sigmoid_from_output_f64)(v)
#define vd_tanh_from_output(v)                                                                 \
  _Generic((v), vec_f32: vd_tanh_from_output_f32, vec_f64: vd_tanh_from_output_f64)(v)

#endif
