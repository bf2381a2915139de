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
-- gradWeight and gradBias. h_T is a view of hs's last step.
--
-- Memory kept from forward for backward, in elements (torch-rnn's LSTM.lua states its own so):
-- hs T·B·H plus the gates and tanh(c_t) of every step 4·T·B·H, so 5·T·B·H, besides references
-- to xs, h0 (and the parameters). Each call also holds scratch while it runs: forward
-- 3·T·B·H + 3H·(H+I), backward 3·T·B·H + B·H.
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
    error(string.format("LLTM:forward: argument 'xs' expected 3 dims (T x B x I), got %d", xs.ndim), 2)
  end
  local T, B, H = xs.sizes[0], xs.sizes[1], self.state_size
  h0 = h0 == nil and zero_state(xs, H) or expect(h0, 'LLTM:forward', 'h0')
  c0 = c0 == nil and zero_state(xs, H) or expect(c0, 'LLTM:forward', 'c0')
  local hs, c_T, saved = new(xs, T, B, H), new(xs, B, H), new(xs, T, B, 4 * H)
  check(C.fused_lltm_seq_forward(hs, c_T, saved, xs, h0, c0, self.weight, self.bias))
  self.saved = { xs = xs, h0 = h0, hs = hs, saved = saved }
  return hs, hs:select(1, tonumber(T)), c_T
end

function LLTM:backward(d_hs, d_hT, d_cT)
  local s = self:expect_saved()
  expect(d_hs, 'LLTM:backward', 'd_hs')
  if d_hT ~= nil then expect(d_hT, 'LLTM:backward', 'd_hT') end
  if d_cT ~= nil then expect(d_cT, 'LLTM:backward', 'd_cT') end
  local B, H = s.xs.sizes[1], self.state_size
  local d_xs, d_h0, d_c0 = tensor.empty_like(s.xs), new(s.xs, B, H), new(s.xs, B, H)
  check(C.fused_lltm_seq_backward(d_xs, d_h0, d_c0, self.gradWeight, self.gradBias, d_hs, d_hT,
                                  d_cT, s.saved, s.xs, s.h0, s.hs, self.weight, 1))
  return d_xs, d_h0, d_c0
end

return LLTM
