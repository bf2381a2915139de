-- The LLTM over a sequence on the cell engine (docs/cells.md): the input half of the gates for
-- all T steps in one GEMM, one GEMM and one pointwise pass per step; backward with one
-- pointwise pass and one GEMM per step, then one GEMM for all of d_xs and one for the input
-- half of gradWeight. Stacked and bidirectional layers and ragged batches as nn.LSTM's.
--
--   local rnn = fused.nn.LLTM(input_size, hidden_size, {num_layers =, bidirectional =,
--     batch_first =, dropout =, bias =, dtype =, device =, compute =})  -- RNNBase's options
--   local hs, h_T, c_T = rnn:forward(xs, h0, c0, {lengths = lengths}) -- h0, c0 nil = 0
--   local d_xs, d_h0, d_c0 = rnn:backward(d_hs, d_hT, d_cT)  -- d_hT, d_cT nil = 0
--
-- weight (3H × (H+I)) and bias (3H) are laid out as in LLTMCell; the other layers and the
-- reverse direction have weight_l0_reverse, weight_l1, ... (bias likewise; gradients
-- grad.<name>, and Torch7's gradWeight and gradBias for the first layer's). With one layer and one direction the states are B×H, else
-- (num_layers·directions)×B×H. backward ADDS into the gradients, and runs once per forward (it
-- writes the gate gradients over the stored activations).
--
-- Memory kept from forward for backward, in elements (torch-rnn's LSTM.lua states its own so),
-- per layer and direction: hs T·B·H plus, for every step, the gates, tanh(c_t) and the state
-- h_{t-1} it started from, 5·T·B·H, so 6·T·B·H, besides a reference to xs; the outputs and
-- input gradients are buffers too, reused by the next call of the same sizes once their call has
-- gone back (nn/calls.lua). Scratch while
-- a call runs: forward 3H·(H+I) + 3H·B (the transposed weight, one step's recurrent part),
-- none backward.
local RNNBase = require 'fused.nn.RNNBase'
local functional = require 'fused.functional'

local LLTM = RNNBase:extend('LLTM')
LLTM.cell, LLTM.has_c, LLTM.squeeze_state = 'lltm', true, true

function LLTM:add_layer(l, suffix, in_size, opts)
  local H = self.hidden_size
  local stdv = 1 / math.sqrt(H) -- LLTMCell's initialisation
  if suffix == '_l0' then suffix = '' end
  self:parameter('weight' .. suffix, { 3 * H, H + in_size }, opts):uniform(-stdv, stdv)
  if self.has_bias then self:parameter('bias' .. suffix, { 3 * H }, opts):uniform(-stdv, stdv) end
end

-- Layer-direction k's weight, bias and their gradients; without biases (has_bias false) a zero
-- bias and a gradient buffer that is thrown away.
local function layer(self, k, x)
  local n = self.parameter_names
  if self.has_bias then
    local w, b = n[2 * k - 1], n[2 * k]
    return self[w], self[b], self.grad[w], self.grad[b]
  end
  local w, GH = n[k], { 3 * self.hidden_size }
  return self[w], self:buffer_shaped('zero_bias', GH, x, true), self.grad[w],
         self:buffer_shaped('unused_d_bias', GH, x)
end

function LLTM:run_layer(k, x, h0, c0, lengths, reverse, out)
  local w, b = layer(self, k, x)
  local _, _, ctx = functional.lltm_seq_forward(x, w, b, h0, c0,
    { lengths = lengths, reverse = reverse, out = { out[1], out[3], out[4], out[2] },
      compute = self.compute })
  return ctx
end

function LLTM:back_layer(k, ctx, d_hs, d_hn, d_cn, out)
  local _, _, d_w, d_b = layer(self, k, d_hs)
  functional.lltm_seq_backward_accumulate(ctx, d_hs, d_hn, d_cn, d_w, d_b, { out = out })
end

return LLTM
