/* The LSTM and GRU cells per element over lanes (hd.h; the LLTM's is lltm.h), PyTorch's maths:
 * each forward takes the gate pre-activations with both biases added and the old state, and
 * gives what backward keeps and the new state; each backward gives the gradients at the
 * pre-activations and at the old state. Then the sequence engine's step of each cell. */
#ifndef FUSED_MATHS_CELLS_H
#define FUSED_MATHS_CELLS_H

#include "lltm.h"
#include "cell_layout.h"

/* Gates i, f, g, o: c' = f·c + i·g, h' = o·tanh(c'). */
FUSED_GENERIC FUSED_HD void lstm_element_forward(lane_t z_i, lane_t z_f, lane_t z_g,
                                                 lane_t z_o, lane_t c, lane_t *i,
                                                 lane_t *f, lane_t *g, lane_t *o,
                                                 lane_t *tanh_cell, lane_t *new_c,
                                                 lane_t *new_h) {
  *i = sigmoid_of(z_i);
  *f = sigmoid_of(z_f);
  *g = tanh_of(z_g);
  *o = sigmoid_of(z_o);
  *new_c = *f * c + *i * *g;
  *tanh_cell = tanh_of(*new_c);
  *new_h = *o * *tanh_cell;
}

FUSED_GENERIC FUSED_HD void lstm_element_backward(lane_t grad_h, lane_t grad_c, lane_t i,
                                                  lane_t f, lane_t g, lane_t o,
                                                  lane_t tanh_cell, lane_t c,
                                                  lane_t *d_i, lane_t *d_f, lane_t *d_g,
                                                  lane_t *d_o, lane_t *d_c) {
  const lane_t d_cell = grad_c + grad_h * o * d_tanh_from_output(tanh_cell);
  *d_i = d_cell * g * d_sigmoid_from_output(i);
  *d_f = d_cell * c * d_sigmoid_from_output(f);
  *d_g = d_cell * i * d_tanh_from_output(g);
  *d_o = grad_h * tanh_cell * d_sigmoid_from_output(o);
  *d_c = d_cell * f;
}

/* Gates r, z, n from the input part (x_*, with b_ih) and the recurrent part (h_*, with b_hh):
 * n = tanh(x_n + r·h_n) keeps b_hn inside the product; h' = (1 − z)·n + z·h. */
FUSED_GENERIC FUSED_HD void gru_element_forward(lane_t x_r, lane_t x_z, lane_t x_n,
                                                lane_t h_r, lane_t h_z, lane_t h_n,
                                                lane_t h, lane_t *r, lane_t *z,
                                                lane_t *n, lane_t *new_h) {
  *r = sigmoid_of(x_r + h_r);
  *z = sigmoid_of(x_z + h_z);
  *n = tanh_of(x_n + *r * h_n);
  *new_h = *n + *z * (h - *n);
}

/* d_n is the gradient at x_n, d_hn the one at h_n (r·d_n); d_r and d_z serve both parts. */
FUSED_GENERIC FUSED_HD void gru_element_backward(lane_t grad_h, lane_t r, lane_t z,
                                                 lane_t n, lane_t h_n, lane_t h,
                                                 lane_t *d_r, lane_t *d_z, lane_t *d_n,
                                                 lane_t *d_hn, lane_t *d_h) {
  *d_n = grad_h * (1 - z) * d_tanh_from_output(n);
  *d_z = grad_h * (h - n) * d_sigmoid_from_output(z);
  *d_r = *d_n * h_n * d_sigmoid_from_output(r);
  *d_hn = *d_n * r;
  *d_h = grad_h * z;
}

/* Elements j.. (m lanes: 1 under nvcc, VEC_LANES or fewer on the CPU) of one batch row of one
 * step of the sequence engine, for each cell, in the blocks of cell_layout.h: s is the row of
 * saved (the input projection, biases not added, in the gate blocks and h_prev at block h_prev
 * on entry), gh the row's recurrent projection (G·H, no bias), c the running cell state (in and
 * out; unused by the GRU). The new h goes to h_next and out. The LLTM has no b_hh. A CUDA
 * thread runs one element; a CPU row is a VEC_FOR over these (c/cpu/generic/rnn.h). */
#define AT(p, k) lane_load((p) + (k) * H + j, m)           /* block k of row p */
#define PUT(p, k, v) lane_store((p) + (k) * H + j, (v), m) /* block k of row p = v */

FUSED_GENERIC FUSED_HD void rnn_lltm_forward(int64_t H, int64_t j, int64_t m, scalar_t *s,
                                             const scalar_t *gh, const scalar_t *b_ih,
                                             const scalar_t *b_hh, scalar_t *c,
                                             scalar_t *h_next, scalar_t *out) {
  lane_t i, o, cand, tc, nc, nh;
  (void)b_hh;
  lltm_element_forward(AT(s, 0) + AT(b_ih, 0) + AT(gh, 0), AT(s, 1) + AT(b_ih, 1) + AT(gh, 1),
                       AT(s, 2) + AT(b_ih, 2) + AT(gh, 2), AT(c, 0), &i, &o, &cand, &tc, &nc,
                       &nh);
  PUT(s, 0, i), PUT(s, 1, o), PUT(s, 2, cand), PUT(s, 3, tc);
  PUT(c, 0, nc), PUT(h_next, 0, nh), PUT(out, 0, nh);
}

/* The LSTM's gate k: input projection, b_ih, recurrent projection and b_hh added in that
 * order. */
#define LSTM_GATE(k) (AT(s, k) + AT(b_ih, k) + AT(gh, k) + AT(b_hh, k))

FUSED_GENERIC FUSED_HD void rnn_lstm_forward(int64_t H, int64_t j, int64_t m, scalar_t *s,
                                             const scalar_t *gh, const scalar_t *b_ih,
                                             const scalar_t *b_hh, scalar_t *c,
                                             scalar_t *h_next, scalar_t *out) {
  lane_t i, f, g, o, tc, nc, nh;
  const lane_t c_prev = AT(c, 0);
  lstm_element_forward(LSTM_GATE(0), LSTM_GATE(1), LSTM_GATE(2), LSTM_GATE(3), c_prev, &i, &f,
                       &g, &o, &tc, &nc, &nh);
  PUT(s, 0, i), PUT(s, 1, f), PUT(s, 2, g), PUT(s, 3, o), PUT(s, 4, tc), PUT(s, 5, c_prev);
  PUT(c, 0, nc), PUT(h_next, 0, nh), PUT(out, 0, nh);
}
#undef LSTM_GATE

FUSED_GENERIC FUSED_HD void rnn_gru_forward(int64_t H, int64_t j, int64_t m, scalar_t *s,
                                            const scalar_t *gh, const scalar_t *b_ih,
                                            const scalar_t *b_hh, scalar_t *c, scalar_t *h_next,
                                            scalar_t *out) {
  lane_t r, z, n, nh;
  (void)c;
  const lane_t h_n = AT(gh, 2) + AT(b_hh, 2);
  gru_element_forward(AT(s, 0) + AT(b_ih, 0), AT(s, 1) + AT(b_ih, 1), AT(s, 2) + AT(b_ih, 2),
                      AT(gh, 0) + AT(b_hh, 0), AT(gh, 1) + AT(b_hh, 1), h_n, AT(s, 6), &r, &z,
                      &n, &nh);
  PUT(s, 0, r), PUT(s, 1, z), PUT(s, 2, n), PUT(s, 3, h_n);
  PUT(h_next, 0, nh), PUT(out, 0, nh);
}

/* Going back: dh holds the gradient at the new h from later steps (d_out, NULL for none, the
 * one from the step's output) and dc the one at the new c; both are replaced by those at the
 * step's old state (dh by its part that bypasses w_hh), and the gate gradients go over s at
 * blocks d_ih and d_hh. */
#define GRAD_H (AT(dh, 0) + (d_out ? AT(d_out, 0) : lane_splat(0)))

FUSED_GENERIC FUSED_HD void rnn_lltm_backward(int64_t H, int64_t j, int64_t m, scalar_t *s,
                                              const scalar_t *d_out, scalar_t *dh,
                                              scalar_t *dc) {
  lane_t d_i, d_o, d_cand, d_c;
  lltm_element_backward(GRAD_H, AT(dc, 0), AT(s, 0), AT(s, 1), AT(s, 2), AT(s, 3), &d_i, &d_o,
                        &d_cand, &d_c);
  PUT(s, 0, d_i), PUT(s, 1, d_o), PUT(s, 2, d_cand);
  PUT(dc, 0, d_c), PUT(dh, 0, lane_splat(0));
}

FUSED_GENERIC FUSED_HD void rnn_lstm_backward(int64_t H, int64_t j, int64_t m, scalar_t *s,
                                              const scalar_t *d_out, scalar_t *dh,
                                              scalar_t *dc) {
  lane_t d_i, d_f, d_g, d_o, d_c;
  lstm_element_backward(GRAD_H, AT(dc, 0), AT(s, 0), AT(s, 1), AT(s, 2), AT(s, 3), AT(s, 4),
                        AT(s, 5), &d_i, &d_f, &d_g, &d_o, &d_c);
  PUT(s, 0, d_i), PUT(s, 1, d_f), PUT(s, 2, d_g), PUT(s, 3, d_o);
  PUT(dc, 0, d_c), PUT(dh, 0, lane_splat(0));
}

/* Blocks 0-2 take the gradients at the recurrent part (d_hh), 3-5 those at the input part. */
FUSED_GENERIC FUSED_HD void rnn_gru_backward(int64_t H, int64_t j, int64_t m, scalar_t *s,
                                             const scalar_t *d_out, scalar_t *dh, scalar_t *dc) {
  lane_t d_r, d_z, d_n, d_hn, d_h;
  (void)dc;
  gru_element_backward(GRAD_H, AT(s, 0), AT(s, 1), AT(s, 2), AT(s, 3), AT(s, 6), &d_r, &d_z,
                       &d_n, &d_hn, &d_h);
  PUT(s, 0, d_r), PUT(s, 1, d_z), PUT(s, 2, d_hn);
  PUT(s, 3, d_r), PUT(s, 4, d_z), PUT(s, 5, d_n);
  PUT(dh, 0, d_h);
}
#undef GRAD_H
#undef AT
#undef PUT

#endif
