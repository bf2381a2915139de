/* What the sequence engine (fused_rnn_forward/backward) keeps per cell, in blocks of H per
 * batch row and step of `saved`, shared by the argument checks and both backends; each cell's
 * numbers are its fused_cell_def (c/ops/cells.c holds the built-in ones and the registered).
 *
 * Forward writes the gate activations (and what else backward reads) from block 0 and the
 * state the step started from at block h_prev; backward writes the gradients at the input
 * projection's pre-activations from block d_ih and those at the recurrent projection's from
 * block d_hh (gates blocks each; a cell's per-unit parameters' gradients in the params blocks
 * after d_hh's), over what it has read. A cell state c is has_c blocks of H per row, outside
 * saved (0: none); a step's output (hs) is outputs blocks of H per row (1 but for a defined
 * cell of several output states). The recurrent weight's gradient is
 * then one GEMM of the d_hh blocks with the h_prev blocks, whatever the lengths and direction.
 *   LLTM  [input, output, candidate, tanh(c'), h_prev]           d_ih = d_hh = 0
 *   LSTM  [i, f, g, o, tanh(c'), c, h_prev]                       d_ih = d_hh = 0
 *   GRU   [r, z, n, W_hn·h + b_hn, -, -, h_prev]                  d_hh = 0, d_ih = 3
 * The GRU's two gradients differ in the n block (the recurrent one is multiplied by r), so
 * they take separate blocks; the two spare blocks are written only by backward. */
#ifndef FUSED_MATHS_CELL_LAYOUT_H
#define FUSED_MATHS_CELL_LAYOUT_H

#include "../fused.h"

typedef struct {
  int32_t gates, saved, has_c, d_ih, d_hh, h_prev, params, outputs;
  int32_t x, d_x; /* a step that reads the layer's input: its blocks (0: none; fused.h) */
} cell_layout;

/* {0} (gates 0) for an unknown cell. */
static inline cell_layout cell_layout_of(int32_t cell) {
  const fused_cell_def *d = fused_rnn_cell(cell);
  if (!d) return (cell_layout){0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  return (cell_layout){d->gates, d->saved, d->has_c, d->d_ih,   d->d_hh,
                       d->h_prev, d->params, d->outputs > 1 ? d->outputs : 1, d->x, d->d_x};
}

#endif
