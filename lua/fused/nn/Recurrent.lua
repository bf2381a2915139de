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
-- A ragged batch ({lengths = ...}) runs every row through the cell at every step, then keeps
-- the state of a sequence past its end (h_T, c_T: each sequence's state after its own last
-- step) and zeroes its hs there, as the fused layers do; the kept states are T·B·H more each.
-- Step t runs on a clone of the cell that shares its parameters and gradients and keeps its own
-- buffers and saved activations (Torch7's clones per time step), made on first use and kept:
-- memory T times the cell's buffers. The cell's gradients accumulate the sum over steps;
-- rnn:parameters() returns the cell's, under 'cell.' in named_parameters.
local blame = require 'fused.blame'
local ffi = require 'ffi'
local Module = require 'fused.nn.Module'
local dt = require 'fused.dtype'
local ops = require 'fused.ops'
local factory = require 'fused.factory'
local lengths_ = require 'fused.functional.lengths'
local recurrent_args = require 'fused.nn.recurrent_args'
local inputs = require 'fused.nn.inputs'
local blame = require 'fused.blame'

local Recurrent = Module:extend('Recurrent')

function Recurrent:__init(cell, ...)
  inputs.no_more('Recurrent', 1, ...)
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

-- The T×B×1 mask of a ragged batch on xs's dtype and device: 1 where sequence b runs step t.
-- Written on the host, then copied: a buffer each, so a step of unchanged shapes allocates nothing.
function Recurrent:step_mask(lengths, T, B, xs)
  local host = self.buffers.mask_host
  if not (host and host.scalar_type == xs.scalar_type and host.sizes[0] == T and host.sizes[1] == B) then
    host = factory.empty({ T, B, 1 }, { dtype = xs.dtype })
    self.buffers.mask_host = host
  end
  local p = ffi.cast(dt.ctypes[host.scalar_type], host.data)
  for t = 1, T do
    for i = 1, B do p[(t - 1) * B + i - 1] = t <= lengths[i - 1] and 1 or 0 end
  end
  if xs.device == 'cpu' then return host end
  return self:buffer_shaped('mask', { T, B, 1 }, xs):copy_(host)
end

-- forward's xs (T×B×I, on the cell's dtype and device), h0 and c0 (B×H or nil): checked here,
-- so that an error names Recurrent:forward and its arguments rather than the cell's.
function Recurrent:expect_inputs(fn, xs, h0, c0)
  local w = self.cell:parameters()[1]
  inputs.floating(xs, fn, 'xs', w)
  local I = self.cell.input_size or self.cell.input_features
  if xs.ndim ~= 3 or (I and xs.sizes[2] ~= I) or xs.sizes[0] < 1 or xs.sizes[1] < 1 then
    blame(string.format("%s: argument 'xs' expected T x B x %s (T, B >= 1, as the fused layers; "
                        .. "the cell's input size), got %s", fn, I or 'I', inputs.shape_text(xs)))
  end
  local state = { xs:size(2), self.hidden_size }
  if h0 ~= nil then inputs.shaped(h0, fn, 'h0', xs, state, "B from 'xs' x the cell's hidden size") end
  if c0 ~= nil then inputs.shaped(c0, fn, 'c0', xs, state, "B from 'xs' x the cell's hidden size") end
end

function Recurrent:forward(xs, ...)
  local fn = 'Recurrent:forward'
  local states, opts = recurrent_args.forward(self, fn, ...)
  local h0, c0 = states[1], states[2]
  self:expect_inputs(fn, xs, h0, c0)
  local b, T, B, H = self.buffers, xs:size(1), xs:size(2), self.hidden_size
  local lengths = lengths_.check(opts.lengths, T, B, fn)
  local mask = lengths and self:step_mask(lengths, T, B, xs)
  local h = h0 and self:unshared(h0) or self:buffer_shaped('zeros', { B, H }, xs, true)
  local c = self.has_c and (c0 and self:unshared(c0) or self:buffer_shaped('zeros', { B, H }, xs, true)) or nil
  b.hs = self:buffer_shaped('hs', { T, B, H }, xs)
  for t = 1, T do
    local new_h, new_c = self:step(t):forward(xs:select(1, t), h, c)
    b.hs:select(1, t):copy_(new_h)
    if mask then -- a sequence past its end keeps its state: h + m·(new_h − h); hs is zero there
      local m = mask:select(1, t)
      b.hs:select(1, t):mul_(m)
      new_h = self:buffer_shaped('h' .. t, { B, H }, xs):copy_(new_h):sub_(h):mul_(m):add_(h)
      if c then new_c = self:buffer_shaped('c' .. t, { B, H }, xs):copy_(new_c):sub_(c):mul_(m):add_(c) end
    end
    h, c = new_h, new_c
  end
  self.saved = { T = T, mask = mask }
  b.h_T = self:buffer_shaped('h_T', { B, H }, xs):copy_(h)
  if not self.has_c then return b.hs, b.h_T end
  b.c_T = self:buffer_shaped('c_T', { B, H }, xs):copy_(c)
  return b.hs, b.h_T, b.c_T
end

-- g·(1 − m) into the buffer `name`: the part of a state's gradient that passes a padded step.
local function passed(self, name, g, m)
  return self:buffer_shaped(name, g:shape(), g):copy_(g):mul_(m):mul_(-1):add_(g)
end

function Recurrent:backward(d_hs, d_hT, d_cT, ...)
  recurrent_args.backward(self, 'Recurrent:backward', d_hs, d_hT, d_cT, ...)
  local fn, s, b = 'Recurrent:backward', self:expect_saved(), self.buffers
  inputs.shaped(d_hs, fn, 'd_hs', b.hs, b.hs:shape(), "forward's hs")
  local state = b.h_T:shape()
  if d_hT ~= nil then inputs.shaped(d_hT, fn, 'd_hT', b.hs, state, "forward's h_T") end
  if d_cT ~= nil then inputs.shaped(d_cT, fn, 'd_cT', b.hs, state, "forward's c_T") end
  local T, steps = s.T, b.steps
  local d_h, d_c = d_hT, d_cT
  for t = T, 1, -1 do
    local m = s.mask and s.mask:select(1, t)
    local pass_h = m and d_h and passed(self, 'pass_h', d_h, m)
    local pass_c = m and d_c and passed(self, 'pass_c', d_c, m)
    local grad_h = d_hs:select(1, t)
    if d_h then
      b.grad_h = ops.add(grad_h, d_h, { out = self:buffer('grad_h', d_hs) })
      grad_h = b.grad_h
    elseif m then
      grad_h = self:buffer_shaped('grad_h', grad_h:shape(), grad_h):copy_(grad_h)
    end
    if m then grad_h:mul_(m) end
    local d_x
    if self.has_c then
      local grad_c = d_c or self:buffer_shaped('zeros', grad_h:shape(), grad_h, true)
      if m then grad_c = self:buffer_shaped('grad_c', grad_h:shape(), grad_h):copy_(grad_c):mul_(m) end
      d_x, d_h, d_c = steps[t]:backward(grad_h, grad_c)
    else
      d_x, d_h = steps[t]:backward(grad_h)
    end
    if pass_h then d_h:add_(pass_h) end
    if pass_c then d_c:add_(pass_c) end
    if t == T then
      b.d_xs = self:buffer_shaped('d_xs', { T, d_x:size(1), d_x:size(2) }, d_x)
    end
    b.d_xs:select(1, t):copy_(d_x)
  end
  if not self.has_c then return b.d_xs, d_h end
  return b.d_xs, d_h, d_c
end

return Recurrent
