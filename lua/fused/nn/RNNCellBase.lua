-- One step of a cell of the engine (LSTMCell, GRUCell): PyTorch's nn.LSTMCell and nn.GRUCell,
-- run as a sequence of one step (functional.rnn_forward), with PyTorch's parameters weight_ih
-- (G·H × I), weight_hh (G·H × H), bias_ih, bias_hh (G·H), uniform in ±1/sqrt(H), and their
-- gradients grad.<name>, which backward ADDS into. A subclass sets cell, gates and has_c.
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local factory = require 'fused.factory'
local Module = require 'fused.nn.Module'
local functional = require 'fused.functional'
local inputs = require 'fused.nn.inputs'

local RNNCellBase = Module:extend('RNNCellBase')

function RNNCellBase:__init(input_size, hidden_size, opts, ...)
  inputs.no_more(self.__name, 3, ...)
  opts = self:tensor_options(opts)
  self:check_size(input_size, 'input_size')
  self:check_size(hidden_size, 'hidden_size')
  self.input_size, self.hidden_size = input_size, hidden_size
  local GH, stdv = self.gates * hidden_size, 1 / math.sqrt(hidden_size)
  for _, p in ipairs({ { 'weight_ih', { GH, input_size } }, { 'weight_hh', { GH, hidden_size } },
                       { 'bias_ih', { GH } }, { 'bias_hh', { GH } } }) do
    self:parameter(p[1], p[2], opts):uniform(-stdv, stdv)
  end
end

function RNNCellBase:extra_repr()
  return string.format('(input_size=%d, hidden_size=%d)', self.input_size, self.hidden_size)
end

-- forward's x B×I, h (and c) B×H, on the module's dtype and device; ... what came after them.
function RNNCellBase:expect_inputs(x, h, c, ...)
  local fn, w, I = self.__name .. ':forward', self.weight_ih, self.input_size
  inputs.no_more(fn, self.has_c and 3 or 2, ...)
  inputs.floating(x, fn, 'x', w)
  if x.ndim ~= 2 or x.sizes[1] ~= I or x.sizes[0] < 1 then
    blame(string.format("%s: argument 'x' expected B x %d (B >= 1, input_size %d), got %s", fn, I,
                        I, inputs.shape_text(x)))
  end
  local state = { tonumber(x.sizes[0]), self.hidden_size }
  inputs.shaped(h, fn, 'h', w, state, "B from 'x' x hidden_size")
  if self.has_c then inputs.shaped(c, fn, 'c', w, state, "B from 'x' x hidden_size") end
end

-- PyTorch's cell(x) with no state: n states of zeros, B (x's) × hidden_size, of the module's
-- dtype and device. One state given without the others stays an error.
function RNNCellBase:zero_states(x, n)
  local B = argcheck.is_tensor(x) and x.ndim == 2 and tonumber(x.sizes[0]) or 1 -- x checked after
  local w, zeros = self.weight_ih, {}
  for k = 1, n do
    zeros[k] = factory.zeros({ B, self.hidden_size }, { dtype = w.dtype, device = w.device })
  end
  return unpack(zeros, 1, n)
end

-- x B×I, h (and c) B×H (none: zeros): the new h (and c). An h or c that is this cell's own
-- output is copied.
function RNNCellBase:step(x, h, c, ...)
  if h == nil and c == nil then h, c = self:zero_states(x, self.has_c and 2 or 1) end
  self:expect_inputs(x, h, c, ...)
  local b = self.buffers
  h, c = self:unshared(h), self:unshared(c)
  local xs = x:contiguous():view(1, tonumber(x.sizes[0]), tonumber(x.sizes[1]))
  b.hs, b.new_h, b.new_c, self.saved = functional.rnn_forward(self.cell, xs, self.weight_ih,
    self.weight_hh, self.bias_ih, self.bias_hh, h, c, { out = { self:buffer('hs', x),
      self:buffer('new_h', x), self:buffer('new_c', x), self.saved } })
  return b.new_h, b.new_c
end

-- d_x, d_h (and d_c) from the gradients at the new h (and c).
function RNNCellBase:step_backward(grad_h, grad_c, ...)
  local fn, ctx, b = self.__name .. ':backward', self:expect_saved(), self.buffers
  local shape = ctx.h0:shape()
  inputs.shaped(grad_h, fn, 'grad_h', self.weight_ih, shape, "forward's new h")
  if self.has_c then
    inputs.shaped(grad_c, fn, 'grad_c', self.weight_ih, shape, "forward's new c")
  elseif grad_c ~= nil then
    blame(string.format('%s: expected 1 argument (grad_h: the cell has no cell state), got 2', fn))
  end
  inputs.no_more(fn, 2, ...)
  b.d_xs, b.d_h, b.d_c = functional.rnn_backward_accumulate(ctx, nil, grad_h, grad_c,
    { self.grad.weight_ih, self.grad.weight_hh, self.grad.bias_ih, self.grad.bias_hh },
    { out = { self:buffer('d_xs', ctx.xs), self:buffer('d_h', ctx.xs), self:buffer('d_c', ctx.xs) } })
  return b.d_xs:select(1, 1), b.d_h, b.d_c
end

return RNNCellBase
