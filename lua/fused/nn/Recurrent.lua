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
-- The padded steps read zeros (a copy of xs), never what the caller left there.
-- Step t runs on a clone of the cell that shares its parameters and gradients and keeps its own
-- buffers and saved activations (Torch7's clones per time step), made on first use and kept:
-- memory T times the cell's buffers. The cell's gradients accumulate the sum over steps;
-- rnn:parameters() returns the cell's, under 'cell.' in named_parameters. A cell of a list of
-- states (nn.RNNCell over a defined cell: its state_names) takes and returns them all, in its
-- order, as nn.RNN does.
local blame = require 'fused.blame'
local ffi = require 'ffi'
local Module = require 'fused.nn.Module'
local dt = require 'fused.dtype'
local ops = require 'fused.ops'
local factory = require 'fused.factory'
local lengths_ = require 'fused.functional.lengths'
local recurrent_args = require 'fused.nn.recurrent_args'
local inputs = require 'fused.nn.inputs'

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
  self.cell, self.has_c, self.state_names = cell, cell.has_c, cell.state_names
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

-- forward's xs (T×B×I, on the cell's dtype and device) and initial states (B×H or nil):
-- checked here, so that an error names Recurrent:forward and its arguments rather than the
-- cell's.
function Recurrent:expect_inputs(fn, xs, states)
  local w = self.cell:parameters()[1]
  inputs.floating(xs, fn, 'xs', w)
  local I = self.cell.input_size or self.cell.input_features
  if xs.ndim ~= 3 or (I and xs.sizes[2] ~= I) or xs.sizes[0] < 1 or xs.sizes[1] < 1 then
    blame(string.format("%s: argument 'xs' expected T x B x %s (T, B >= 1, as the fused layers; "
                        .. "the cell's input size), got %s", fn, I or 'I', inputs.shape_text(xs)))
  end
  local state = { xs:size(2), self.hidden_size }
  for k, name in ipairs(recurrent_args.names(self)) do
    if states[k] ~= nil then
      inputs.shaped(states[k], fn, name .. '0', xs, state, "B from 'xs' x the cell's hidden size")
    end
  end
end

function Recurrent:forward(xs, ...)
  local fn = 'Recurrent:forward'
  local states, opts = recurrent_args.forward(self, fn, ...)
  self:expect_inputs(fn, xs, states)
  local b, T, B, H = self.buffers, xs:size(1), xs:size(2), self.hidden_size
  local names = recurrent_args.names(self)
  local lengths = lengths_.check(opts.lengths, T, B, fn)
  local mask = lengths and self:step_mask(lengths, T, B, xs)
  if lengths then xs = lengths_.zero_padding(self, xs, lengths, T, B) end
  local s = {}
  for k = 1, #names do
    s[k] = states[k] and self:unshared(states[k]) or self:buffer_shaped('zeros', { B, H }, xs, true)
  end
  b.hs = self:buffer_shaped('hs', { T, B, H }, xs)
  for t = 1, T do
    local new = { self:step(t):forward(xs:select(1, t), unpack(s, 1, #names)) }
    b.hs:select(1, t):copy_(new[1])
    if mask then -- a sequence past its end keeps its state: s + m·(new_s − s); hs is zero there
      local m = mask:select(1, t)
      b.hs:select(1, t):mul_(m)
      for k, name in ipairs(names) do
        new[k] = self:buffer_shaped(name .. t, { B, H }, xs):copy_(new[k]):sub_(s[k]):mul_(m)
          :add_(s[k])
      end
    end
    s = new
  end
  self.saved = { T = T, mask = mask }
  local out = { b.hs }
  for k, name in ipairs(names) do
    b[name .. '_T'] = self:buffer_shaped(name .. '_T', { B, H }, xs):copy_(s[k])
    out[k + 1] = b[name .. '_T']
  end
  return unpack(out, 1, #names + 1)
end

-- g·(1 − m) into the buffer `name`: the part of a state's gradient that passes a padded step.
local function passed(self, name, g, m)
  return self:buffer_shaped(name, g:shape(), g):copy_(g):mul_(m):mul_(-1):add_(g)
end

function Recurrent:backward(d_hs, ...)
  recurrent_args.backward(self, 'Recurrent:backward', d_hs, ...)
  local fn, s, b = 'Recurrent:backward', self:expect_saved(), self.buffers
  local names = recurrent_args.names(self)
  inputs.shaped(d_hs, fn, 'd_hs', b.hs, b.hs:shape(), "forward's hs")
  local state, d = b.h_T:shape(), { ... }
  for k, name in ipairs(names) do
    if d[k] ~= nil then
      inputs.shaped(d[k], fn, 'd_' .. name .. 'T', b.hs, state, "forward's " .. name .. '_T')
    end
  end
  local T, steps = s.T, b.steps
  for t = T, 1, -1 do
    local m = s.mask and s.mask:select(1, t)
    local pass = {}
    for k, name in ipairs(names) do
      pass[k] = m and d[k] and passed(self, 'pass_' .. name, d[k], m)
    end
    local grad = { d_hs:select(1, t) }
    if d[1] then
      b.grad_h = ops.add(grad[1], d[1], { out = self:buffer('grad_h', d_hs) })
      grad[1] = b.grad_h
    elseif m then
      grad[1] = self:buffer_shaped('grad_h', grad[1]:shape(), grad[1]):copy_(grad[1])
    end
    if m then grad[1]:mul_(m) end
    for k = 2, #names do
      local name = names[k]
      grad[k] = d[k] or self:buffer_shaped('zeros', grad[1]:shape(), grad[1], true)
      if m then
        grad[k] = self:buffer_shaped('grad_' .. name, grad[1]:shape(), grad[1]):copy_(grad[k])
          :mul_(m)
      end
    end
    local r = { steps[t]:backward(unpack(grad, 1, #names)) }
    for k = 1, #names do
      d[k] = r[k + 1]
      if pass[k] then d[k]:add_(pass[k]) end
    end
    if t == T then
      b.d_xs = self:buffer_shaped('d_xs', { T, r[1]:size(1), r[1]:size(2) }, r[1])
    end
    b.d_xs:select(1, t):copy_(r[1])
  end
  return b.d_xs, unpack(d, 1, #names)
end

return Recurrent
