/* A minimal gated unit (Zhou et al. 2016), none of fused's cells: one forget gate f and a
 * candidate n, h' = (1 - f)·h + f·n. As in PyTorch's GRU, f multiplies the recurrent
 * projection of h (n = tanh(x_n + f·(W_hn h + b_hn))) rather than h itself, so that the
 * engine's one recurrent GEMM per step serves. Saved per row:
 *   [f, n, W_hn h + b_hn, d_f, d_n, h_prev]
 * backward writes the input projection's gradients at blocks 3-4 (d_ih = 3) and the
 * recurrent one's, whose n block is f·d_n, at 0-1 (d_hh = 0).
 * Register with gates = 2, state = 'h', saved = 6, d_ih = 3. */
#include <fused_ext.h>

FUSED_CELL_FORWARD(mgu, {
  VEC_FOR(H, j, m, {
    const vec h = vload(s + 5 * H + j, m);
    const vec f = sigmoid_of(vload(s + j, m) + vload(b_ih + j, m) + vload(gh + j, m) +
                             vload(b_hh + j, m));
    const vec h_n = vload(gh + H + j, m) + vload(b_hh + H + j, m);
    const vec n = tanh_of(vload(s + H + j, m) + vload(b_ih + H + j, m) + f * h_n);
    vstore(s + j, f, m);
    vstore(s + H + j, n, m);
    vstore(s + 2 * H + j, h_n, m);
    vstore(h_next + j, h + f * (n - h), m);
    vstore(out + j, h + f * (n - h), m);
  })
})

FUSED_CELL_BACKWARD(mgu, {
  VEC_FOR(H, j, m, {
    const vec g = vload(dh + j, m) + (d_out ? vload(d_out + j, m) : vsplat(0));
    const vec f = vload(s + j, m), n = vload(s + H + j, m);
    const vec h_n = vload(s + 2 * H + j, m), h = vload(s + 5 * H + j, m);
    const vec d_n = g * f * d_tanh_from_output(n);
    const vec d_f = (g * (n - h) + d_n * h_n) * d_sigmoid_from_output(f);
    vstore(s + 3 * H + j, d_f, m);
    vstore(s + 4 * H + j, d_n, m);
    vstore(s + j, d_f, m);
    vstore(s + H + j, f * d_n, m);
    vstore(dh + j, g * (1 - f), m);
  })
})
