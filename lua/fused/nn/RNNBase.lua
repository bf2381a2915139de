-- Stacked, optionally bidirectional recurrent layers over one cell of the engine
-- (functional/rnn.lua, docs/cells.md), the base of LSTM, GRU and LLTM, in PyTorch's layout:
-- layer l + 1 takes layer l's outputs, both directions concatenated; the reverse direction
-- runs the same kernels from T down to 1; a ragged batch (`lengths`) is zero at the padded
-- steps, and h_n (c_n) holds each sequence's state after its own last step. forward and
-- backward are this base's, called as every recurrent module is (recurrent_args.lua):
--   hs, h_n[, c_n] = m:forward(xs, h0[, c0], {lengths = ...})
--   d_xs, d_h0[, d_c0] = m:backward(d_hs, d_hn[, d_cn])
--
-- A subclass sets `cell` and `has_c` (and, for a cell of several states, state_names: h's
-- first, the others are the engine's c side by side, recurrent_args.lua), and defines add_layer(l, suffix, in_size, opts) (its
-- parameters, declared with Module:parameter in PyTorch's order), run_layer(k, x, h0, c0,
-- lengths, reverse, out) and back_layer(k, ctx, d_hs, d_hn, d_cn, out) for layer-direction k
-- (1-based, PyTorch's order).
local blame = require 'fused.blame'
local Module = require 'fused.nn.Module'
local options = require 'fused.options'
local lengths_ = require 'fused.functional.lengths'
local Dropout = require 'fused.nn.Dropout'
local recurrent_args = require 'fused.nn.recurrent_args'
local inputs = require 'fused.nn.inputs'
local compute_option = require 'fused.nn.compute'
local heads_option = require('fused.functional.args').heads

local RNNBase = Module:extend('RNNBase')

-- opts: num_layers (1), bidirectional (false), batch_first (false: xs T×B×I, hs T×B×D·H; true:
-- B×T×I and B×T×D·H, the states stay (L·D)×B×H, as PyTorch's), dropout (0: the probability of
-- dropping an element of a layer's output before the next layer, in training mode only), bias
-- (true; false: no bias parameters, has_bias false), dtype, device, compute (nil; 'bfloat16':
-- the products on bfloat16 operands, nn/compute.lua), heads (1; NH: weight_hh holds the NH
-- diagonal blocks of a block-diagonal recurrent matrix, G·H×(H/NH), docs/cells.md; only where
-- the class sets takes_heads).
function RNNBase:__init(input_size, hidden_size, opts, ...)
  inputs.no_more(self.__name, 3, ...)
  if type(opts) == 'table' and opts.heads ~= nil and not self.takes_heads then
    error(string.format("%s: option 'heads' is not taken by nn.%s (nn.LSTM, nn.GRU and nn.RNN "
                        .. 'take it)', self.__name, self.__name), 3)
  end
  opts = options.check(opts, self.__name, { 'num_layers', 'bidirectional', 'batch_first', 'dropout',
                                           'bias', 'dtype', 'device', 'compute', 'heads' })
  self:check_size(input_size, 'input_size')
  self:check_size(hidden_size, 'hidden_size')
  self.heads = heads_option(opts.heads, hidden_size, self.__name)
  local num_layers = opts.num_layers or 1
  if type(num_layers) ~= 'number' or num_layers < 1 or num_layers ~= math.floor(num_layers) then
    error(string.format("%s: option 'num_layers' expected a positive integer, got %s",
                        self.__name, tostring(num_layers)), 3)
  end
  for _, name in ipairs({ 'bidirectional', 'batch_first', 'bias' }) do
    if opts[name] ~= nil and type(opts[name]) ~= 'boolean' then
      error(string.format("%s: option '%s' expected a boolean, got %s", self.__name, name,
                          type(opts[name])), 3)
    end
  end
  local p = opts.dropout or 0
  if type(p) ~= 'number' or not (p >= 0 and p <= 1) then
    error(string.format("%s: option 'dropout' expected a probability in [0, 1], got %s",
                        self.__name, tostring(p)), 3)
  end
  local topts = self:tensor_options({ dtype = opts.dtype, device = opts.device })
  self.compute = compute_option(opts.compute, self.__name, topts)
  self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
  self.bidirectional = opts.bidirectional or false
  self.batch_first, self.dropout, self.has_bias = opts.batch_first or false, p, opts.bias ~= false
  self.directions = self.bidirectional and 2 or 1
  -- a layer's output per direction: outputs states of H (one but for a defined cell's)
  self.outputs = self.outputs or 1
  for l = 0, num_layers - 1 do
    for d = 1, self.directions do
      self:add_layer(l, '_l' .. l .. (d == 2 and '_reverse' or ''),
                     l == 0 and input_size or self.directions * self.outputs * hidden_size, topts)
    end
  end
end

-- The nn.Dropout before layer l (from 1; nil without dropout), one per gap between layers,
-- each keeping its own mask for backward: a buffer, so that a shared_clone has its own. Run in
-- this module's mode (not children: train() and eval() set self.training, run reads it).
local function dropout_before(self, l)
  if self.dropout == 0 or l == 0 then return nil end
  local drops = self.buffers.dropouts or {}
  self.buffers.dropouts = drops
  drops[l] = drops[l] or Dropout(self.dropout)
  return drops[l]
end

-- tostring: 'fused.nn.LSTM(input_size=32, hidden_size=128, num_layers=2, bidirectional=true)',
-- the options after the sizes only when they are not the defaults, in PyTorch's order.
function RNNBase:extra_repr()
  return string.format('(input_size=%d, hidden_size=%d%s%s%s%s%s', self.input_size,
                       self.hidden_size, self.num_layers > 1 and ', num_layers=' .. self.num_layers or '',
                       self.has_bias and '' or ', bias=false',
                       self.batch_first and ', batch_first=true' or '',
                       self.dropout > 0 and ', dropout=' .. self.dropout or '',
                       self.bidirectional and ', bidirectional=true' or '')
    .. (self.heads > 1 and ', heads=' .. self.heads or '')
    .. (self.compute and ", compute='" .. self.compute .. "')" or ')')
end

-- The states of every layer and direction: (L·D)×B×H; B×H is taken when L·D is 1.
function RNNBase:state_view(t, k)
  if t == nil or t.ndim == 2 then return t end
  return t:select(1, k)
end

-- An h0 or c0 (arg) given as the user gave it: checked against (L·D)×B×H, or a B×H when L·D is
-- 1 (the engine then checks B×H); nil gives zeros.
function RNNBase:initial_state(t, arg, xs, B, fn)
  local LD, H = self.num_layers * self.directions, self.hidden_size
  if t == nil then return self:buffer_shaped('zeros', { B, H }, xs, true) end
  inputs.floating(t, fn, arg, xs)
  local ok = t.ndim == 3 and t.sizes[0] == LD and t.sizes[1] == B and t.sizes[2] == H
  if not ok and not (LD == 1 and t.ndim == 2 and t.sizes[0] == B and t.sizes[1] == H) then
    blame(string.format("%s: argument '%s' expected shape [%d, %d, %d] (num_layers x directions, "
                        .. "B from 'xs', hidden_size)%s, got %s", fn, arg, LD, B, H,
                        LD == 1 and string.format(' or [%d, %d]', B, H) or '',
                        inputs.shape_text(t)))
  end
  return self:unshared(t)
end

-- The engine's c, K·H wide, as the K states after h (views), or itself for K = 1.
local function split(self, c)
  local K, H = #recurrent_args.names(self) - 1, self.hidden_size
  if K == 1 then return c end
  local parts = {}
  for k = 1, K do parts[k] = c:narrow(c.ndim, (k - 1) * H + 1, H) end
  return unpack(parts)
end

-- The states after h, or their gradients (list: a tensor or nil each, checked by check(t, k)),
-- as the engine's c: the one itself (nil: zeros), or K side by side in the buffer name
-- (shape: the states' shape, K·H wide).
local function join(self, name, list, shape, like, check)
  local K, H = #recurrent_args.names(self) - 1, self.hidden_size
  if K == 1 then return check(list[1], 2) end
  local wide = { unpack(shape) }
  wide[#wide] = K * H
  local joined = self:buffer_shaped(name, wide, like)
  for k = 1, K do
    local t, part = check(list[k], k + 1), joined:narrow(#wide, (k - 1) * H + 1, H)
    if t == nil then part:zero_()
    elseif t.ndim == part.ndim then part:copy_(t)
    else -- a B×H state for every layer and direction
      for i = 1, shape[1] do part:select(1, i):copy_(t) end
    end
  end
  return joined
end

-- hs, h_n (and the other states, c_n, ...): recurrent_args' convention.
function RNNBase:forward(xs, ...)
  local fn = self.__name .. ':forward'
  local states, opts = recurrent_args.forward(self, fn, ...)
  local hs, h_n, c_n = self:run(xs, states[1], { unpack(states, 2) }, opts.lengths, opts.resets)
  if self.has_c then return hs, h_n, split(self, c_n) end
  return hs, h_n
end

-- d_xs, d_h0 (and d_c0, ...) from the gradients at forward's results (d_hn, d_cn nil: zeros).
function RNNBase:backward(d_hs, d_hn, ...)
  recurrent_args.backward(self, self.__name .. ':backward', d_hs, d_hn, ...)
  local d_xs, d_h0, d_c0 = self:run_backward(d_hs, d_hn, { ... })
  if self.has_c then return d_xs, d_h0, split(self, d_c0) end
  return d_xs, d_h0
end

-- t (B×T×…) copied time-major (T×B×…) into the buffer `name`, or the other way round.
function RNNBase:swap_batch_time(name, t)
  local s = t:shape()
  s[1], s[2] = s[2], s[1]
  return self:buffer_shaped(name, s, t):copy_(t:transpose(1, 2))
end

-- hs T×B×(D·H), then h_n (and c_n): (L·D)×B×H, or B×H when squeeze_state and L·D is 1; cs the
-- initial states after h (c_n K·H wide for K of them).
function RNNBase:run(xs, h0, cs, lengths, resets)
  local fn = self.__name .. ':forward'
  local w = self[self.parameter_names[1]]
  inputs.floating(xs, fn, 'xs', w)
  compute_option(self.compute, fn, w) -- a module moved to float64 after it was made
  local I = self.input_size
  if xs.ndim ~= 3 or xs.sizes[2] ~= I or xs.sizes[0] < 1 or xs.sizes[1] < 1 then
    blame(string.format("%s: argument 'xs' expected %s x %d (T, B >= 1: the sequence engine takes "
                        .. 'no empty sequence or batch yet; input_size %d), got %s', fn,
                        self.batch_first and 'B x T' or 'T x B', I, I, inputs.shape_text(xs)))
  end
  if resets ~= nil then -- a linear cell's (nn/linear_layer.lua)
    if not self.check_resets then
      blame(string.format("%s: option 'resets' takes a linear cell (fused.cell.define{linear = "
                          .. 'true}), whose step reads reset', fn))
    end
    resets = self:check_resets(fn, resets, xs, lengths)
  end
  if self.batch_first then xs = self:swap_batch_time('xs_time_major', xs) end
  local T, B, H, D = tonumber(xs.sizes[0]), tonumber(xs.sizes[1]), self.hidden_size, self.directions
  local LD = self.num_layers * D
  local ragged = lengths_.check(lengths, T, B, fn)
  h0 = self:initial_state(h0, 'h0', xs, B, fn)
  local names = recurrent_args.names(self)
  local c0 = nil
  if self.has_c then
    c0 = join(self, 'c0_joined', cs, { LD, B, H }, xs, function(t, k)
      return self:initial_state(t, names[k] .. '0', xs, B, fn)
    end)
  end
  local state = (self.squeeze_state and LD == 1) and { B, H } or { LD, B, H }
  local h_n = self:buffer_shaped('h_n', state, xs)
  local c_state = { unpack(state) }
  c_state[#c_state] = (#names - 1) * H
  local c_n = self.has_c and self:buffer_shaped('c_n', c_state, xs) or nil
  local saved = self.saved or { ctxs = {} } -- a free slot's: its contexts are reused
  saved.lengths = lengths
  local x = ragged and lengths_.zero_padding(self, xs, ragged, T, B) or xs
  for l = 0, self.num_layers - 1 do
    local drop = dropout_before(self, l)
    if drop then
      drop.training = self.training
      x = drop:forward(x)
    end
    local OH = self.outputs * H
    local out = self:buffer_shaped('out' .. l, { T, B, D * OH }, xs)
    for d = 1, D do
      local k = l * D + d
      local hs = D == 1 and out or out:narrow(3, (d - 1) * OH + 1, OH)
      saved.ctxs[k] = self:run_layer(k, x, h0.ndim == 2 and h0 or h0:select(1, k),
        c0 and (c0.ndim == 2 and c0 or c0:select(1, k)), lengths, d == 2,
        { hs, self:state_view(h_n, k), self:state_view(c_n, k), saved.ctxs[k] }, resets)
    end
    x = out
  end
  saved.xs = xs
  self.saved = saved
  if self.batch_first then x = self:swap_batch_time('hs_batch_first', x) end
  return x, h_n, c_n
end

-- backward's gradients: d_hs of forward's hs, d_hn (nil: zeros) of its h_n (or B×H when that
-- is (1, B, H)); xs is forward's, time-major. Returns the check of a final state's gradient
-- (arg, t): t, or an error.
function RNNBase:expect_gradients(fn, xs, d_hs, d_hn)
  local T, B, H = tonumber(xs.sizes[0]), tonumber(xs.sizes[1]), self.hidden_size
  local DH = self.directions * self.outputs * H
  inputs.shaped(d_hs, fn, 'd_hs', xs, self.batch_first and { B, T, DH } or { T, B, DH },
                "forward's hs")
  local state = self.buffers.h_n:shape()
  local function expect(arg, t)
    if t ~= nil then
      inputs.floating(t, fn, arg, xs)
      local squeezed = #state == 3 and state[1] == 1 and t.ndim == 2
      inputs.shaped(t, fn, arg, xs, squeezed and { B, H } or state, "forward's " .. arg:sub(3))
    end
    return t
  end
  expect('d_hn', d_hn)
  return expect
end

-- d_xs, d_h0 (and d_c0, K·H wide for K states after h); parameter gradients accumulate.
-- d_cs: the gradients at the final states after h (nil ones: zeros).
function RNNBase:run_backward(d_hs, d_hn, d_cs)
  local s = self:expect_saved()
  local fn = self.__name .. ':backward'
  local expect = self:expect_gradients(fn, s.xs, d_hs, d_hn)
  local names, h_n = recurrent_args.names(self), self.buffers.h_n
  local d_cn = nil
  if self.has_c then
    d_cn = join(self, 'd_cn_joined', d_cs, h_n:shape(), s.xs, function(t, k)
      return expect('d_' .. names[k] .. 'n', t)
    end)
  end
  if self.batch_first then d_hs = self:swap_batch_time('d_hs_time_major', d_hs) end
  local xs, D = s.xs, self.directions
  local OH = self.outputs * self.hidden_size -- a layer's output per direction
  local d_h0 = self:buffer_shaped('d_h0', h_n:shape(), xs)
  local d_c0 = self.has_c and self:buffer_shaped('d_c0', self.buffers.c_n:shape(), xs) or nil
  local d_out = d_hs
  for l = self.num_layers - 1, 0, -1 do
    local d_in
    for d = 1, D do
      local k = l * D + d
      local in_shape = l == 0 and xs:shape() or { tonumber(xs.sizes[0]), tonumber(xs.sizes[1]), D * OH }
      local d_x = self:buffer_shaped('d_in' .. k, in_shape, xs)
      self:back_layer(k, s.ctxs[k], D == 1 and d_out or d_out:narrow(3, (d - 1) * OH + 1, OH),
        self:state_view(d_hn, k), self:state_view(d_cn, k),
        { d_x, self:state_view(d_h0, k), self:state_view(d_c0, k) })
      if d_in then d_in:add_(d_x) else d_in = d_x end
    end
    local drop = dropout_before(self, l)
    d_out = drop and drop:backward(d_in) or d_in
  end
  if self.batch_first then d_out = self:swap_batch_time('d_xs_batch_first', d_out) end
  return d_out, d_h0, d_c0
end

return RNNBase
