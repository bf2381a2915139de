-- Unrolls any cell module over time, step by step: the generic (slower) way, and the reference
-- for the fused nn.LLTM. Same protocol as nn.LLTM:
--
--   local rnn = fused.nn.Recurrent(fused.nn.LLTMCell(I, H))
--   local hs, h_T, c_T = rnn:forward(xs, h0, c0)      -- xs T×B×I, hs T×B×H; h0, c0 nil = 0
--   local d_xs, d_h0, d_c0 = rnn:backward(d_hs, d_hT, d_cT) -- d_hT, d_cT nil = 0
--
-- Step t runs on a clone of the cell that shares its parameters and gradients and keeps its own
-- buffers and saved activations (Torch7's clones per time step), made on first use and kept:
-- memory T times the cell's buffers. The cell's gradWeight and gradBias accumulate the sum over
-- steps; rnn:parameters() returns the cell's.
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

-- The clone of the cell for step t, pointed at the cell's current parameters.
function Recurrent:step(t)
  local steps = self.buffers.steps or {}
  self.buffers.steps = steps
  steps[t] = self.cell:shared_clone(steps[t])
  return steps[t]
end

function Recurrent:forward(xs, h0, c0)
  expect(xs, 'Recurrent:forward', 'xs')
  if xs:dim() ~= 3 then
    error(string.format("Recurrent:forward: argument 'xs' expected 3 dims (T x B x I), got %d",
                        xs:dim()), 2)
  end
  local b, T, B, H = self.buffers, xs:size(1), xs:size(2), self.cell.state_size
  local h = h0 and self:unshared(h0) or self:buffer_shaped('zeros', { B, H }, xs, true)
  local c = c0 and self:unshared(c0) or self:buffer_shaped('zeros', { B, H }, xs, true)
  b.hs = self:buffer_shaped('hs', { T, B, H }, xs)
  for t = 1, T do
    h, c = self:step(t):forward(xs:select(1, t), h, c)
    b.hs:select(1, t):copy_(h)
  end
  b.c_T = self:buffer_shaped('c_T', { B, H }, xs):copy_(c)
  self.saved = { T = T }
  return b.hs, b.hs:select(1, T), b.c_T
end

function Recurrent:backward(d_hs, d_hT, d_cT)
  local s, b = self:expect_saved(), self.buffers
  expect(d_hs, 'Recurrent:backward', 'd_hs')
  local T, steps = s.T, b.steps
  local d_h, d_c = d_hT, d_cT
  for t = T, 1, -1 do
    local grad_h = d_hs:select(1, t)
    if d_h then
      b.grad_h = ops.add(grad_h, d_h, { out = self:buffer('grad_h', d_hs) })
      grad_h = b.grad_h
    end
    local grad_c = d_c or self:buffer_shaped('zeros', grad_h:shape(), grad_h, true)
    local d_x
    d_x, d_h, d_c = steps[t]:backward(grad_h, grad_c)
    if t == T then
      b.d_xs = self:buffer_shaped('d_xs', { T, d_x:size(1), d_x:size(2) }, d_x)
    end
    b.d_xs:select(1, t):copy_(d_x)
  end
  return b.d_xs, d_h, d_c
end

return Recurrent
