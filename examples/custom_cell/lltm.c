/* The LLTM re-expressed as a user cell (docs/extending.md): the same maths as fused's own
 * (c/maths/lltm.h), over the same vectors (fused_simd.h), to check that a cell of yours runs as
 * fast and as exactly as ours. Gates input, output, candidate (ELU); saved [input, output,
 * candidate, tanh(c'), h_prev]; one cell state c. Register with gates = 3, state = 'hc',
 * saved = 5 (h_prev 4 by default). */
#include <fused_ext.h>

FUSED_CELL_FORWARD(lltm, {
  VEC_FOR(H, j, m, {
    const vec z_i = vload(s + j, m) + vload(b_ih + j, m) + vload(gh + j, m) + vload(b_hh + j, m);
    const vec z_o = vload(s + H + j, m) + vload(b_ih + H + j, m) + vload(gh + H + j, m) +
                    vload(b_hh + H + j, m);
    const vec z_c = vload(s + 2 * H + j, m) + vload(b_ih + 2 * H + j, m) +
                    vload(gh + 2 * H + j, m) + vload(b_hh + 2 * H + j, m);
    const vec i = vsigmoid(z_i), o = vsigmoid(z_o), cand = velu(z_c, 1);
    const vec new_c = vload(c + j, m) + cand * i, tc = vtanh(new_c), h = tc * o;
    vstore(s + j, i, m);
    vstore(s + H + j, o, m);
    vstore(s + 2 * H + j, cand, m);
    vstore(s + 3 * H + j, tc, m);
    vstore(c + j, new_c, m);
    vstore(h_next + j, h, m);
    vstore(out + j, h, m);
  })
})

FUSED_CELL_BACKWARD(lltm, {
  VEC_FOR(H, j, m, {
    const vec g = vload(dh + j, m) + (d_out ? vload(d_out + j, m) : vsplat(0));
    const vec i = vload(s + j, m), o = vload(s + H + j, m);
    const vec cand = vload(s + 2 * H + j, m), tc = vload(s + 3 * H + j, m);
    const vec d_cell = vload(dc + j, m) + g * o * vd_tanh_from_output(tc);
    vstore(s + j, d_cell * cand * vd_sigmoid_from_output(i), m);
    vstore(s + H + j, g * tc * vd_sigmoid_from_output(o), m);
    vstore(s + 2 * H + j, d_cell * i * vd_elu_from_output(cand), m);
    vstore(dc + j, d_cell, m);
    vstore(dh + j, vsplat(0), m);
  })
})
