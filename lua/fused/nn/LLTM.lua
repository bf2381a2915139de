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
-- to xs and h0. The 4·T·B·H buffer is reused by the next forward of the same sizes. Scratch
-- while a call runs: forward 3H·(H+I) (the transposed weight), backward B·H.
local ffi = require 'ffi'
local Module = require 'fused.nn.Module'
local LLTMCell = require 'fused.nn.LLTMCell'
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'

local C, check, expect = lib.C, lib.check, tensor.expect
local LLTM = Module:extend('LLTM')

function LLTM:__init(input_size, hidden_size, opts)
  LLTMCell.init_parameters(self, input_size, hidden_size, opts)
end

local sizes = ffi.new('int64_t[3]')
local function new(like, a, b, c)
  sizes[0], sizes[1], sizes[2] = a, b, c or 0
  return tensor.new(c and 3 or 2, sizes, like.scalar_type, like.device_type)
end

-- A zero state of B×H, for a nil h0 or c0.
local function zero_state(xs, H)
  local t = new(xs, xs.sizes[1], H)
  return t:zero()
end

function LLTM:forward(xs, h0, c0)
  expect(xs, 'LLTM:forward', 'xs')
  if xs.ndim ~= 3 then
    error(string.format("LLTM:forward: argument 'xs' expected 3 dims (T x B x I), got %d",
                        xs.ndim), 2)
  end
  local T, B, H = xs.sizes[0], xs.sizes[1], self.state_size
  h0 = h0 == nil and zero_state(xs, H) or expect(h0, 'LLTM:forward', 'h0')
  c0 = c0 == nil and zero_state(xs, H) or expect(c0, 'LLTM:forward', 'c0')
  local hs, c_T = new(xs, T, B, H), new(xs, B, H)
  local saved = self.saved and self.saved.activations
  if not (saved and saved.sizes[0] == T and saved.sizes[1] == B and
          saved.scalar_type == xs.scalar_type and saved.device_type == xs.device_type) then
    saved = new(xs, T, B, 4 * H)
  end
  check(C.fused_lltm_seq_forward(hs, c_T, saved, xs, h0, c0, self.weight, self.bias))
  self.saved = { xs = xs, h0 = h0, hs = hs, activations = saved }
  return hs, hs:select(1, tonumber(T)), c_T
end

function LLTM:backward(d_hs, d_hT, d_cT)
  local s = self:expect_saved()
  if s.consumed then
    error('LLTM:backward: the latest forward was already gone back through (backward runs once '
          .. 'per forward)', 2)
  end
  expect(d_hs, 'LLTM:backward', 'd_hs')
  if d_hT ~= nil then expect(d_hT, 'LLTM:backward', 'd_hT') end
  if d_cT ~= nil then expect(d_cT, 'LLTM:backward', 'd_cT') end
  local B, H = s.xs.sizes[1], self.state_size
  local d_xs, d_h0, d_c0 = tensor.empty_like(s.xs), new(s.xs, B, H), new(s.xs, B, H)
  check(C.fused_lltm_seq_backward(d_xs, d_h0, d_c0, self.gradWeight, self.gradBias, d_hs, d_hT,
                                  d_cT, s.activations, s.xs, s.h0, s.hs, self.weight, 1))
  s.consumed = true
  return d_xs, d_h0, d_c0
end

return LLTM
