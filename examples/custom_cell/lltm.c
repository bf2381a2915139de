/* The LLTM re-expressed as a user cell (docs/extending.md): fused's own LLTM step
 * (lltm_element_forward/backward of c/maths/lltm.h, the source fused's cells run) over the same
 * vectors (fused_simd.h), to check that a cell of yours runs as fast and as exactly as ours.
 * Gates input, output, candidate (ELU); saved [input, output, candidate, tanh(c'), h_prev]; one
 * cell state c. Register with gates = 3, state = 'hc', saved = 5 (h_prev 4 by default). */
#include <fused_ext.h>

FUSED_CELL_FORWARD(lltm, {
  VEC_FOR(H, j, m, {
    vec i, o, cand, tc, new_c, h;
    lltm_element_forward(
        vload(s + j, m) + vload(b_ih + j, m) + vload(gh + j, m) + vload(b_hh + j, m),
        vload(s + H + j, m) + vload(b_ih + H + j, m) + vload(gh + H + j, m) +
            vload(b_hh + H + j, m),
        vload(s + 2 * H + j, m) + vload(b_ih + 2 * H + j, m) + vload(gh + 2 * H + j, m) +
            vload(b_hh + 2 * H + j, m),
        vload(c + j, m), &i, &o, &cand, &tc, &new_c, &h);
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
    vec d_i, d_o, d_cand, d_c;
    lltm_element_backward(vload(dh + j, m) + (d_out ? vload(d_out + j, m) : vsplat(0)),
                          vload(dc + j, m), vload(s + j, m), vload(s + H + j, m),
                          vload(s + 2 * H + j, m), vload(s + 3 * H + j, m), &d_i, &d_o, &d_cand,
                          &d_c);
    vstore(s + j, d_i, m);
    vstore(s + H + j, d_o, m);
    vstore(s + 2 * H + j, d_cand, m);
    vstore(dc + j, d_c, m);
    vstore(dh + j, vsplat(0), m);
  })
})
