-- The LLTM over a sequence, fused over time in C: the input half of the gates for all T steps
-- in one GEMM, one GEMM and one pointwise pass per step; backward from T down to 1 with one
-- pointwise pass and one GEMM per step, then one GEMM for all of d_xs and one for the input
-- half of gradWeight.
--
--   local rnn = fused.nn.LLTM(input_size, hidden_size, {dtype=, device=})
--   local hs, h_T, c_T = rnn:forward(xs, h0, c0)      -- xs T×B×I, hs T×B×H; h0, c0 nil = 0
--   local d_xs, d_h0, d_c0 = rnn:backward(d_hs, d_hT, d_cT) -- d_hT, d_cT nil = 0
--
-- weight (3H × (H+I)) and bias (3H) are laid out as in LLTMCell; backward ADDS into
-- gradWeight and gradBias, and runs once per forward (it writes the gate gradients over the
-- stored activations). h_T is a view of hs's last step.
--
-- Memory kept from forward for backward, in elements (torch-rnn's LSTM.lua states its own so):
-- hs T·B·H plus the gates and tanh(c_t) of every step 4·T·B·H, so 5·T·B·H, besides references
-- to xs and h0; the outputs and input gradients are buffers too, all reused by the next call of
-- the same sizes. Scratch while a call runs: forward 3H·(H+I) (the transposed weight),
-- backward B·H.
local Module = require 'fused.nn.Module'
local LLTMCell = require 'fused.nn.LLTMCell'
local functional = require 'fused.functional'
local tensor = require 'fused.tensor'

local expect = tensor.expect
local LLTM = Module:extend('LLTM')

function LLTM:__init(input_size, hidden_size, opts)
  LLTMCell.init_parameters(self, input_size, hidden_size, opts)
end

LLTM.extra_repr = LLTMCell.extra_repr

function LLTM:forward(xs, h0, c0)
  expect(xs, 'LLTM:forward', 'xs')
  if xs.ndim ~= 3 then
    error(string.format("LLTM:forward: argument 'xs' expected 3 dims (T x B x I), got %d",
                        xs.ndim), 2)
  end
  local b, T, B, H = self.buffers, tonumber(xs.sizes[0]), tonumber(xs.sizes[1]), self.state_size
  -- Zeros for a nil state, kept: the kernels only read h0 and c0. An h0 or c0 that is this
  -- module's own output (h_T fed back) is copied first.
  h0 = h0 == nil and self:buffer_shaped('zeros', { B, H }, xs, true)
    or self:unshared(expect(h0, 'LLTM:forward', 'h0'))
  c0 = c0 == nil and self:buffer_shaped('zeros', { B, H }, xs, true)
    or self:unshared(expect(c0, 'LLTM:forward', 'c0'))
  b.hs, b.c_T, self.saved = functional.lltm_seq_forward(xs, self.weight, self.bias, h0, c0, {
    out = { self:buffer('hs', xs), self:buffer('c_T', xs), self.saved } })
  return b.hs, b.hs:select(1, T), b.c_T
end

function LLTM:backward(d_hs, d_hT, d_cT)
  local s, b = self:expect_saved(), self.buffers
  if s.consumed then
    error('LLTM:backward: the latest forward was already gone back through (backward runs once '
          .. 'per forward)', 2)
  end
  b.d_xs, b.d_h0, b.d_c0 = functional.lltm_seq_backward_accumulate(s, d_hs, d_hT, d_cT,
    self.gradWeight, self.gradBias, { out = { self:buffer('d_xs', s.xs), self:buffer('d_h0', s.xs),
                                              self:buffer('d_c0', s.xs) } })
  return b.d_xs, b.d_h0, b.d_c0
end

return LLTM
