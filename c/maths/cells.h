/* The LSTM and GRU cells per element (the LLTM's is lltm.h), PyTorch's maths: each forward
 * takes the gate pre-activations with both biases added and the old state, and gives what
 * backward keeps and the new state; each backward gives the gradients at the pre-activations
 * and at the old state. */
#ifndef FUSED_MATHS_CELLS_H
#define FUSED_MATHS_CELLS_H

#include "activations.h"

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

#endif
