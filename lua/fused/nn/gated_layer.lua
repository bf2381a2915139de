-- The layers of the cells with PyTorch's two weights and two biases (LSTM, GRU), for RNNBase:
-- their parameters and one layer-direction through functional.rnn_forward/backward.
local functional = require 'fused.functional'
local rnn_parameters = require 'fused.nn.rnn_parameters'

local M = {}

function M.add_layer(self, l, suffix, in_size, opts)
  local GH, H = self.gates * self.hidden_size, self.hidden_size
  for _, p in ipairs({ { 'weight_ih', { GH, in_size } }, { 'weight_hh', { GH, H } },
                       { 'bias_ih', { GH } }, { 'bias_hh', { GH } } }) do
    rnn_parameters.add(self, p[1] .. suffix, 'grad_' .. p[1] .. suffix, p[2], opts)
  end
end

-- The four names of layer-direction k in parameter_names.
local function entries(self, k)
  local n = self.parameter_names
  return n[4 * k - 3], n[4 * k - 2], n[4 * k - 1], n[4 * k]
end

function M.run_layer(self, k, x, h0, c0, lengths, reverse, out)
  local w_ih, w_hh, b_ih, b_hh = entries(self, k)
  local _, _, _, ctx = functional.rnn_forward(self.cell, x, self[w_ih[1]], self[w_hh[1]],
    self[b_ih[1]], self[b_hh[1]], h0, c0, { lengths = lengths, reverse = reverse, out = out })
  return ctx
end

function M.back_layer(self, k, ctx, d_hs, d_hn, d_cn, out)
  local w_ih, w_hh, b_ih, b_hh = entries(self, k)
  functional.rnn_backward_accumulate(ctx, d_hs, d_hn, d_cn,
    { self[w_ih[2]], self[w_hh[2]], self[b_ih[2]], self[b_hh[2]] }, { out = out })
end

return M
