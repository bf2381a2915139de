/* The LSTM and GRU cells per element (the LLTM's is lltm.h), PyTorch's maths: each forward
 * takes the gate pre-activations with both biases added and the old state, and gives what
 * backward keeps and the new state; each backward gives the gradients at the pre-activations
 * and at the old state. */
#ifndef FUSED_MATHS_CELLS_H
#define FUSED_MATHS_CELLS_H

#include "lltm.h"
#include "cell_layout.h"

/* Gates i, f, g, o: c' = f·c + i·g, h' = o·tanh(c'). */
FUSED_GENERIC FUSED_HD void lstm_element_forward(scalar_t z_i, scalar_t z_f, scalar_t z_g,
                                                 scalar_t z_o, scalar_t c, scalar_t *i,
                                                 scalar_t *f, scalar_t *g, scalar_t *o,
                                                 scalar_t *tanh_cell, scalar_t *new_c,
                                                 scalar_t *new_h) {
  *i = sigmoid_of(z_i);
  *f = sigmoid_of(z_f);
  *g = tanh_of(z_g);
  *o = sigmoid_of(z_o);
  *new_c = *f * c + *i * *g;
  *tanh_cell = tanh_of(*new_c);
  *new_h = *o * *tanh_cell;
}

FUSED_GENERIC FUSED_HD void lstm_element_backward(scalar_t grad_h, scalar_t grad_c, scalar_t i,
                                                  scalar_t f, scalar_t g, scalar_t o,
                                                  scalar_t tanh_cell, scalar_t c,
                                                  scalar_t *d_i, scalar_t *d_f, scalar_t *d_g,
                                                  scalar_t *d_o, scalar_t *d_c) {
  const scalar_t d_cell = grad_c + grad_h * o * d_tanh_from_output(tanh_cell);
  *d_i = d_cell * g * d_sigmoid_from_output(i);
  *d_f = d_cell * c * d_sigmoid_from_output(f);
  *d_g = d_cell * i * d_tanh_from_output(g);
  *d_o = grad_h * tanh_cell * d_sigmoid_from_output(o);
  *d_c = d_cell * f;
}

/* Gates r, z, n from the input part (x_*, with b_ih) and the recurrent part (h_*, with b_hh):
 * n = tanh(x_n + r·h_n) keeps b_hn inside the product; h' = (1 − z)·n + z·h. */
FUSED_GENERIC FUSED_HD void gru_element_forward(scalar_t x_r, scalar_t x_z, scalar_t x_n,
                                                scalar_t h_r, scalar_t h_z, scalar_t h_n,
                                                scalar_t h, scalar_t *r, scalar_t *z,
                                                scalar_t *n, scalar_t *new_h) {
  *r = sigmoid_of(x_r + h_r);
  *z = sigmoid_of(x_z + h_z);
  *n = tanh_of(x_n + *r * h_n);
  *new_h = *n + *z * (h - *n);
}

/* d_n is the gradient at x_n, d_hn the one at h_n (r·d_n); d_r and d_z serve both parts. */
FUSED_GENERIC FUSED_HD void gru_element_backward(scalar_t grad_h, scalar_t r, scalar_t z,
                                                 scalar_t n, scalar_t h_n, scalar_t h,
                                                 scalar_t *d_r, scalar_t *d_z, scalar_t *d_n,
                                                 scalar_t *d_hn, scalar_t *d_h) {
  *d_n = grad_h * (1 - z) * d_tanh_from_output(n);
  *d_z = grad_h * (h - n) * d_sigmoid_from_output(z);
  *d_r = *d_n * h_n * d_sigmoid_from_output(r);
  *d_hn = *d_n * r;
  *d_h = grad_h * z;
}

/* Element j of one batch row of one step of the sequence engine, for each cell, in the blocks
 * of cell_layout.h: s is the row of saved (the input projection, biases not added, in the gate
 * blocks and h_prev at block h_prev on entry), gh the row's recurrent projection (G·H, no
 * bias), c the running cell state (in and out; unused by the GRU). The new h goes to h_next
 * and out. The LLTM has no b_hh. */
FUSED_GENERIC FUSED_HD void rnn_lltm_forward(int64_t H, int64_t j, scalar_t *s, const scalar_t *gh,
                                             const scalar_t *b_ih, const scalar_t *b_hh,
                                             scalar_t *c, scalar_t *h_next, scalar_t *out) {
  scalar_t i, o, cand, tc, nc, nh;
  lltm_element_forward(s[j] + b_ih[j] + gh[j], s[H + j] + b_ih[H + j] + gh[H + j],
                       s[2 * H + j] + b_ih[2 * H + j] + gh[2 * H + j], c[j], &i, &o, &cand, &tc,
                       &nc, &nh);
  s[j] = i, s[H + j] = o, s[2 * H + j] = cand, s[3 * H + j] = tc;
  c[j] = nc, h_next[j] = nh, out[j] = nh;
}

FUSED_GENERIC FUSED_HD void rnn_lstm_forward(int64_t H, int64_t j, scalar_t *s, const scalar_t *gh,
                                             const scalar_t *b_ih, const scalar_t *b_hh,
                                             scalar_t *c, scalar_t *h_next, scalar_t *out) {
  scalar_t i, f, g, o, tc, nc, nh;
  const scalar_t c_prev = c[j];
  lstm_element_forward(s[j] + b_ih[j] + gh[j] + b_hh[j],
                       s[H + j] + b_ih[H + j] + gh[H + j] + b_hh[H + j],
                       s[2 * H + j] + b_ih[2 * H + j] + gh[2 * H + j] + b_hh[2 * H + j],
                       s[3 * H + j] + b_ih[3 * H + j] + gh[3 * H + j] + b_hh[3 * H + j], c_prev,
                       &i, &f, &g, &o, &tc, &nc, &nh);
  s[j] = i, s[H + j] = f, s[2 * H + j] = g, s[3 * H + j] = o, s[4 * H + j] = tc;
  s[5 * H + j] = c_prev;
  c[j] = nc, h_next[j] = nh, out[j] = nh;
}

FUSED_GENERIC FUSED_HD void rnn_gru_forward(int64_t H, int64_t j, scalar_t *s, const scalar_t *gh,
                                            const scalar_t *b_ih, const scalar_t *b_hh,
                                            scalar_t *c, scalar_t *h_next, scalar_t *out) {
  scalar_t r, z, n, nh;
  const scalar_t h_n = gh[2 * H + j] + b_hh[2 * H + j];
  gru_element_forward(s[j] + b_ih[j], s[H + j] + b_ih[H + j], s[2 * H + j] + b_ih[2 * H + j],
                      gh[j] + b_hh[j], gh[H + j] + b_hh[H + j], h_n, s[6 * H + j], &r, &z, &n,
                      &nh);
  s[j] = r, s[H + j] = z, s[2 * H + j] = n, s[3 * H + j] = h_n;
  h_next[j] = nh, out[j] = nh;
}

/* Going back: dh holds the gradient at the new h from later steps (d_out, NULL for none, the
 * one from the step's output) and dc the one at the new c; both are replaced by those at the
 * step's old state (dh by its part that bypasses w_hh), and the gate gradients go over s at
 * blocks d_ih and d_hh. */
FUSED_GENERIC FUSED_HD void rnn_lltm_backward(int64_t H, int64_t j, scalar_t *s,
                                              const scalar_t *d_out, scalar_t *dh, scalar_t *dc) {
  scalar_t d_i, d_o, d_cand, d_c;
  lltm_element_backward(dh[j] + (d_out ? d_out[j] : 0), dc[j], s[j], s[H + j], s[2 * H + j],
                        s[3 * H + j], &d_i, &d_o, &d_cand, &d_c);
  s[j] = d_i, s[H + j] = d_o, s[2 * H + j] = d_cand;
  dc[j] = d_c, dh[j] = 0;
}

FUSED_GENERIC FUSED_HD void rnn_lstm_backward(int64_t H, int64_t j, scalar_t *s,
                                              const scalar_t *d_out, scalar_t *dh, scalar_t *dc) {
  scalar_t d_i, d_f, d_g, d_o, d_c;
  lstm_element_backward(dh[j] + (d_out ? d_out[j] : 0), dc[j], s[j], s[H + j], s[2 * H + j],
                        s[3 * H + j], s[4 * H + j], s[5 * H + j], &d_i, &d_f, &d_g, &d_o, &d_c);
  s[j] = d_i, s[H + j] = d_f, s[2 * H + j] = d_g, s[3 * H + j] = d_o;
  dc[j] = d_c, dh[j] = 0;
}

FUSED_GENERIC FUSED_HD void rnn_gru_backward(int64_t H, int64_t j, scalar_t *s,
                                             const scalar_t *d_out, scalar_t *dh, scalar_t *dc) {
  scalar_t d_r, d_z, d_n, d_hn, d_h;
  gru_element_backward(dh[j] + (d_out ? d_out[j] : 0), s[j], s[H + j], s[2 * H + j],
                       s[3 * H + j], s[6 * H + j], &d_r, &d_z, &d_n, &d_hn, &d_h);
  s[j] = d_r, s[H + j] = d_z, s[2 * H + j] = d_hn;
  s[3 * H + j] = d_r, s[4 * H + j] = d_z, s[5 * H + j] = d_n;
  dh[j] = d_h;
}

#endif
