-- Unrolls any cell module over time, step by step: the generic (slower) way, and the reference
-- for the fused nn.LLTM. Same protocol as nn.LLTM:
--
--   local rnn = fused.nn.Recurrent(fused.nn.LLTMCell(I, H))
--   local hs, h_T, c_T = rnn:forward(xs, h0, c0)      -- xs T×B×I, hs T×B×H; h0, c0 nil = 0
--   local d_xs, d_h0, d_c0 = rnn:backward(d_hs, d_hT, d_cT) -- d_hT, d_cT nil = 0
--
-- A cell keeps only its latest forward (cell.saved, a new table each call), so Recurrent keeps
-- every step's: backward puts each back before cell:backward for t = T..1. The cell's
-- gradWeight and gradBias accumulate the sum over steps; rnn:parameters() returns the cell's.
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local tensor = require 'fused.tensor'

local expect = tensor.expect
local Recurrent = Module:extend('Recurrent')

function Recurrent:__init(cell)
  if type(cell) ~= 'table' or type(cell.forward) ~= 'function' or not cell.state_size then
    error("Recurrent: argument 'cell' expected a cell module (forward(x, h, c) -> h, c), got "
          .. type(cell), 3)
  end
  self.cell = cell
end

-- Zeros of B×H with like's dtype and device.
local function zeros(like, B, H)
  return tensor.zeros({ B, H }, { dtype = like.dtype, device = like.device })
end

function Recurrent:forward(xs, h0, c0)
  expect(xs, 'Recurrent:forward', 'xs')
  if xs:dim() ~= 3 then
    error(string.format("Recurrent:forward: argument 'xs' expected 3 dims (T x B x I), got %d",
                        xs:dim()), 2)
  end
  local T, H = xs:size(1), self.cell.state_size
  local h, c = h0 or zeros(xs, xs:size(2), H), c0 or zeros(xs, xs:size(2), H)
  local steps, hs = {}, {}
  for t = 1, T do
    h, c = self.cell:forward(xs:select(1, t), h, c)
    hs[t], steps[t] = h, self.cell.saved
  end
  self.saved = { steps = steps, T = T }
  local all = ops.cat(hs, 1):view(T, xs:size(2), H)
  return all, all:select(1, T), c
end

function Recurrent:backward(d_hs, d_hT, d_cT)
  local s = self:expect_saved()
  expect(d_hs, 'Recurrent:backward', 'd_hs')
  local T = s.T
  local d_xs = {}
  local d_h, d_c = d_hT, d_cT
  for t = T, 1, -1 do
    local grad_h = d_hs:select(1, t):contiguous()
    if d_h then grad_h = grad_h + d_h end
    local grad_c = d_c or zeros(grad_h, grad_h:size(1), grad_h:size(2))
    self.cell.saved = s.steps[t]
    d_xs[t], d_h, d_c = self.cell:backward(grad_h, grad_c)
  end
  return ops.cat(d_xs, 1):view(T, d_xs[1]:size(1), d_xs[1]:size(2)), d_h, d_c
end

return Recurrent
