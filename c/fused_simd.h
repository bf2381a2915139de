/* fused's CPU vectors and its per-element maths for extensions (docs/extending.md): c/cpu/simd.h,
 * c/cpu/simd_math.h and the steps of c/maths/ (activations.h, lltm.h, cells.h) over those
 * vectors, which fused's own kernels include once per dtype, included here for float and double
 * in one file, so that one FUSED_CELL_FORWARD body serves both, and a cell of yours calls the
 * very steps that fused's cells run. fused_ext.h includes this; FUSED_CELL_FORWARD/BACKWARD
 * bodies have `vec` (and scalar_t) in scope:
 *
 *   VEC_FOR(H, j, m, { vstore(out + j, sigmoid_of(vload(s + j, m)), m); })
 *
 * Each name below is the float instance (sigmoid_of_f32) or the double one (sigmoid_of_f64),
 * chosen by the type of its first vector or scalar argument (of *s for the rnn_ rows); vsplat,
 * vlanes, VEC_FOR and VEC_LANES take scalar_t and `vec` from the scope they are used in. The
 * vectors are as wide as the flags allow (simd.h): fused.ext compiles with those of the
 * capability fused runs. C only. */
#ifndef FUSED_SIMD_H
#define FUSED_SIMD_H

/* While the headers are read, each name they define becomes name_f32, then name_f64. */
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
#define sigmoid_of FUSED_SIMD_NAME(sigmoid_of)
#define tanh_of FUSED_SIMD_NAME(tanh_of)
#define elu_of FUSED_SIMD_NAME(elu_of)
#define d_elu_of FUSED_SIMD_NAME(d_elu_of)
#define d_elu_from_output FUSED_SIMD_NAME(d_elu_from_output)
#define d_sigmoid_from_output FUSED_SIMD_NAME(d_sigmoid_from_output)
#define d_tanh_from_output FUSED_SIMD_NAME(d_tanh_from_output)
#define lltm_element_forward FUSED_SIMD_NAME(lltm_element_forward)
#define lltm_element_backward FUSED_SIMD_NAME(lltm_element_backward)
#define lstm_element_forward FUSED_SIMD_NAME(lstm_element_forward)
#define lstm_element_backward FUSED_SIMD_NAME(lstm_element_backward)
#define gru_element_forward FUSED_SIMD_NAME(gru_element_forward)
#define gru_element_backward FUSED_SIMD_NAME(gru_element_backward)
#define rnn_lltm_forward FUSED_SIMD_NAME(rnn_lltm_forward)
#define rnn_lstm_forward FUSED_SIMD_NAME(rnn_lstm_forward)
#define rnn_gru_forward FUSED_SIMD_NAME(rnn_gru_forward)
#define rnn_lltm_backward FUSED_SIMD_NAME(rnn_lltm_backward)
#define rnn_lstm_backward FUSED_SIMD_NAME(rnn_lstm_backward)
#define rnn_gru_backward FUSED_SIMD_NAME(rnn_gru_backward)

#define scalar_t float
#define FUSED_SIMD_DTYPE f32
#include "cpu/simd.h"
#include "cpu/simd_math.h"
#include "maths/cells.h"
#undef scalar_t
#undef FUSED_SIMD_DTYPE
/* The maths headers again, for double. */
#undef FUSED_MATHS_ACTIVATIONS_H
#undef FUSED_MATHS_LLTM_H
#undef FUSED_MATHS_CELLS_H

#define scalar_t double
#define FUSED_SIMD_DTYPE f64
#include "cpu/simd.h"
#include "cpu/simd_math.h"
#include "maths/cells.h"
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
#undef sigmoid_of
#undef tanh_of
#undef elu_of
#undef d_elu_of
#undef d_elu_from_output
#undef d_sigmoid_from_output
#undef d_tanh_from_output
#undef lltm_element_forward
#undef lltm_element_backward
#undef lstm_element_forward
#undef lstm_element_backward
#undef gru_element_forward
#undef gru_element_backward
#undef rnn_lltm_forward
#undef rnn_lstm_forward
#undef rnn_gru_forward
#undef rnn_lltm_backward
#undef rnn_lstm_backward
#undef rnn_gru_backward

/* name_f32 or name_f64 after the type of x: a vector or a scalar. */
#define FUSED_SIMD_OF(x, name)                                                                 \
  _Generic((x), vec_f32: name##_f32, vec_f64: name##_f64, float: name##_f32, double: name##_f64)

/* The first n lanes at p (float or double), the others zero; vstore writes v's first n. */
#define vload(p, n) FUSED_SIMD_OF(*(p), vload)(p, n)
#define vstore(p, v, n) FUSED_SIMD_OF(v, vstore)(p, v, n)
/* mask ? a : b per lane, mask a comparison of vectors. */
#define vselect(mask, a, b) FUSED_SIMD_OF(a, vselect)(mask, a, b)
#define vabs(v) FUSED_SIMD_OF(v, vabs)(v)
#define vcopysign(v, sign) FUSED_SIMD_OF(v, vcopysign)(v, sign)
/* exp and expm1 of arguments <= 0, per lane and of one scalar. */
#define vexp_nonpos(v) FUSED_SIMD_OF(v, vexp_nonpos)(v)
#define vexpm1_nonpos(v) FUSED_SIMD_OF(v, vexpm1_nonpos)(v)
#define exp_nonpos(x) FUSED_SIMD_OF(x, exp_nonpos)(x)
#define expm1_nonpos(x) FUSED_SIMD_OF(x, expm1_nonpos)(x)
/* The activations of fused's cells (c/maths/activations.h), and their derivatives. */
#define sigmoid_of(v) FUSED_SIMD_OF(v, sigmoid_of)(v)
#define tanh_of(v) FUSED_SIMD_OF(v, tanh_of)(v)
#define elu_of(v, alpha) FUSED_SIMD_OF(v, elu_of)(v, alpha)
#define d_elu_of(v, alpha) FUSED_SIMD_OF(v, d_elu_of)(v, alpha)
#define d_elu_from_output(v) FUSED_SIMD_OF(v, d_elu_from_output)(v)
#define d_sigmoid_from_output(v) FUSED_SIMD_OF(v, d_sigmoid_from_output)(v)
#define d_tanh_from_output(v) FUSED_SIMD_OF(v, d_tanh_from_output)(v)
/* The cells' steps over vectors (c/maths/lltm.h, cells.h): the outputs through pointers. */
#define lltm_element_forward(z, ...) FUSED_SIMD_OF(z, lltm_element_forward)(z, __VA_ARGS__)
#define lltm_element_backward(g, ...) FUSED_SIMD_OF(g, lltm_element_backward)(g, __VA_ARGS__)
#define lstm_element_forward(z, ...) FUSED_SIMD_OF(z, lstm_element_forward)(z, __VA_ARGS__)
#define lstm_element_backward(g, ...) FUSED_SIMD_OF(g, lstm_element_backward)(g, __VA_ARGS__)
#define gru_element_forward(x, ...) FUSED_SIMD_OF(x, gru_element_forward)(x, __VA_ARGS__)
#define gru_element_backward(g, ...) FUSED_SIMD_OF(g, gru_element_backward)(g, __VA_ARGS__)
/* The built-in cells' engine steps at elements j.. (m lanes) of a row s (c/maths/cells.h). */
#define FUSED_SIMD_ROW(name, H, j, m, s, ...) FUSED_SIMD_OF(*(s), name)(H, j, m, s, __VA_ARGS__)
#define rnn_lltm_forward(...) FUSED_SIMD_ROW(rnn_lltm_forward, __VA_ARGS__)
#define rnn_lstm_forward(...) FUSED_SIMD_ROW(rnn_lstm_forward, __VA_ARGS__)
#define rnn_gru_forward(...) FUSED_SIMD_ROW(rnn_gru_forward, __VA_ARGS__)
#define rnn_lltm_backward(...) FUSED_SIMD_ROW(rnn_lltm_backward, __VA_ARGS__)
#define rnn_lstm_backward(...) FUSED_SIMD_ROW(rnn_lstm_backward, __VA_ARGS__)
#define rnn_gru_backward(...) FUSED_SIMD_ROW(rnn_gru_backward, __VA_ARGS__)

#endif
