/* The LLTM re-expressed as a user cell (docs/extending.md): the same maths as fused's own
 * (c/maths/lltm.h), to check that a cell of yours runs as fast and as exactly as ours.
 * Gates input, output, candidate (ELU); saved [input, output, candidate, tanh(c'), h_prev];
 * one cell state c. Register with gates = 3, state = 'hc', saved = 5 (h_prev 4 by default). */
#include <tgmath.h>

#include <fused_ext.h>

FUSED_CELL_FORWARD(lltm, {
  _Pragma("omp simd") for (int64_t j = 0; j < H; j++) {
    const scalar_t z_i = s[j] + b_ih[j] + gh[j] + b_hh[j];
    const scalar_t z_o = s[H + j] + b_ih[H + j] + gh[H + j] + b_hh[H + j];
    const scalar_t z_c = s[2 * H + j] + b_ih[2 * H + j] + gh[2 * H + j] + b_hh[2 * H + j];
    const scalar_t i = 1 / (1 + exp(-z_i)), o = 1 / (1 + exp(-z_o));
    const scalar_t cand = z_c > 0 ? z_c : expm1(z_c);
    const scalar_t new_c = c[j] + cand * i, tc = tanh(new_c);
    s[j] = i, s[H + j] = o, s[2 * H + j] = cand, s[3 * H + j] = tc;
    c[j] = new_c, h_next[j] = tc * o, out[j] = tc * o;
  }
})

FUSED_CELL_BACKWARD(lltm, {
  _Pragma("omp simd") for (int64_t j = 0; j < H; j++) {
    const scalar_t g = dh[j] + (d_out ? d_out[j] : 0);
    const scalar_t i = s[j], o = s[H + j], cand = s[2 * H + j], tc = s[3 * H + j];
    const scalar_t d_cell = dc[j] + g * o * (1 - tc * tc);
    s[j] = d_cell * cand * i * (1 - i);
    s[H + j] = g * tc * o * (1 - o);
    s[2 * H + j] = d_cell * i * (cand > 0 ? 1 : cand + 1);
    dc[j] = d_cell, dh[j] = 0;
  }
})
