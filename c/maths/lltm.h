/* The LLTM cell per element, over lanes (hd.h; fused.h): gates from their pre-activations
 * (bias added), the new state, and the gradients with respect to the pre-activations.
 *
 * Both backends save [input_gate, output_gate, candidate, tanh(new_c)] and take ELU's
 * derivative as candidate + 1. Saving z and using exp(z) instead (what CUDA did) gave the same
 * errors against the golden `saturated` case to six digits in float32 and float64, and costs a
 * second exp per element in backward. */
#ifndef FUSED_MATHS_LLTM_H
#define FUSED_MATHS_LLTM_H

#include "activations.h"

/* What forward keeps of one element, in saved's order, and the new state. */
FUSED_GENERIC FUSED_HD void lltm_element_forward(lane_t z_input, lane_t z_output,
                                                 lane_t z_candidate, lane_t c,
                                                 lane_t *input_gate, lane_t *output_gate,
                                                 lane_t *candidate, lane_t *tanh_cell,
                                                 lane_t *new_c, lane_t *new_h) {
  *input_gate = sigmoid_of(z_input);
  *output_gate = sigmoid_of(z_output);
  *candidate = elu_of(z_candidate, (scalar_t)1);
  *new_c = c + *candidate * *input_gate;
  *tanh_cell = tanh_of(*new_c);
  *new_h = *tanh_cell * *output_gate;
}

/* From the gradients at new_h and new_c and what forward saved: the gradients at the three
 * pre-activations and at c. */
FUSED_GENERIC FUSED_HD void lltm_element_backward(lane_t grad_h, lane_t grad_c,
                                                  lane_t input_gate, lane_t output_gate,
                                                  lane_t candidate, lane_t tanh_cell,
                                                  lane_t *d_input, lane_t *d_output,
                                                  lane_t *d_candidate, lane_t *d_c) {
  const lane_t d_cell = grad_c + grad_h * output_gate * d_tanh_from_output(tanh_cell);
  *d_input = d_cell * candidate * d_sigmoid_from_output(input_gate);
  *d_output = grad_h * tanh_cell * d_sigmoid_from_output(output_gate);
  *d_candidate = d_cell * input_gate * d_elu_from_output(candidate);
  *d_c = d_cell;
}

#endif
