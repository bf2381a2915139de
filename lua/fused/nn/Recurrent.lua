-- Unrolls any cell module over time, step by step: the generic (slower) way, and the reference
-- for the fused sequence layers. The cell is any module with forward(x, h[, c]) -> h[, c] and
-- backward(grad_h[, grad_c]) -> d_x, d_h[, d_c], whose has_c says whether it keeps a cell state
-- and whose hidden_size (the LLTM's state_size) is the state's width: LSTMCell, GRUCell,
-- LLTMCell, LLTMCellComposed. Called as the sequence layers are (recurrent_args):
--
--   local rnn = fused.nn.Recurrent(fused.nn.LSTMCell(I, H))
--   local hs, h_T, c_T = rnn:forward(xs, h0, c0)      -- xs T×B×I, hs T×B×H; h0, c0 nil = 0
--   local d_xs, d_h0, d_c0 = rnn:backward(d_hs, d_hT, d_cT) -- d_hT, d_cT nil = 0
--   local hs, h_T = fused.nn.Recurrent(fused.nn.GRUCell(I, H)):forward(xs, h0)
--
-- A ragged batch ({lengths = ...}) is not unrolled here: nn.LSTM, nn.GRU, nn.LLTM and nn.RNN
-- take it. Step t runs on a clone of the cell that shares its parameters and gradients and keeps
-- its own buffers and saved activations (Torch7's clones per time step), made on first use and
-- kept: memory T times the cell's buffers. The cell's gradients accumulate the sum over steps;
-- rnn:parameters() returns the cell's, under 'cell.' in named_parameters.
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local tensor = require 'fused.tensor'
local recurrent_args = require 'fused.nn.recurrent_args'

local expect = tensor.expect
local Recurrent = Module:extend('Recurrent')

function Recurrent:__init(cell)
  local ok = type(cell) == 'table' and type(cell.forward) == 'function'
             and type(cell.backward) == 'function' and type(cell.has_c) == 'boolean'
             and (cell.hidden_size or cell.state_size)
  if not ok then
    error("Recurrent: argument 'cell' expected a cell module (LSTMCell, GRUCell, LLTMCell, ...: "
          .. 'forward(x, h[, c]), has_c, hidden_size), got '
          .. (type(cell) == 'table' and tostring(cell.__name or 'a table') or type(cell)), 3)
  end
  self.cell, self.has_c = cell, cell.has_c
  self.hidden_size = cell.hidden_size or cell.state_size
end

-- The clone of the cell for step t, pointed at the cell's current parameters.
function Recurrent:step(t)
  local steps = self.buffers.steps or {}
  self.buffers.steps = steps
  steps[t] = self.cell:shared_clone(steps[t])
  return steps[t]
end

function Recurrent:forward(xs, ...)
  local fn = 'Recurrent:forward'
  local h0, c0, opts = recurrent_args.forward(self, fn, ...)
  if opts.lengths ~= nil then
    error(fn .. ": option 'lengths' is not supported (a ragged batch runs on nn.LSTM, nn.GRU, "
          .. 'nn.LLTM or nn.RNN)', 2)
  end
  expect(xs, fn, 'xs')
  if xs:dim() ~= 3 then
    error(string.format("%s: argument 'xs' expected 3 dims (T x B x I), got %d", fn, xs:dim()), 2)
  end
  local b, T, B, H = self.buffers, xs:size(1), xs:size(2), self.hidden_size
  local h = h0 and self:unshared(h0) or self:buffer_shaped('zeros', { B, H }, xs, true)
  local c = self.has_c and (c0 and self:unshared(c0) or self:buffer_shaped('zeros', { B, H }, xs, true))
  b.hs = self:buffer_shaped('hs', { T, B, H }, xs)
  for t = 1, T do
    if self.has_c then
      h, c = self:step(t):forward(xs:select(1, t), h, c)
    else
      h = self:step(t):forward(xs:select(1, t), h)
    end
    b.hs:select(1, t):copy_(h)
  end
  self.saved = { T = T }
  if not self.has_c then return b.hs, b.hs:select(1, T) end
  b.c_T = self:buffer_shaped('c_T', { B, H }, xs):copy_(c)
  return b.hs, b.hs:select(1, T), b.c_T
end

function Recurrent:backward(d_hs, d_hT, d_cT, ...)
  recurrent_args.backward(self, 'Recurrent:backward', d_hs, d_hT, d_cT, ...)
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
    local d_x
    if self.has_c then
      local grad_c = d_c or self:buffer_shaped('zeros', grad_h:shape(), grad_h, true)
      d_x, d_h, d_c = steps[t]:backward(grad_h, grad_c)
    else
      d_x, d_h = steps[t]:backward(grad_h)
    end
    if t == T then
      b.d_xs = self:buffer_shaped('d_xs', { T, d_x:size(1), d_x:size(2) }, d_x)
    end
    b.d_xs:select(1, t):copy_(d_x)
  end
  if not self.has_c then return b.d_xs, d_h end
  return b.d_xs, d_h, d_c
end

return Recurrent
