-- The LLTM cell of the PyTorch C++/CUDA extension tutorial, fused in C: one step of the cell
-- engine (fused.functional.lltm_forward/backward), GEMMs and one pointwise pass each way.
--
--   local cell = fused.nn.LLTMCell(input_features, state_size, {dtype=, device=})
--   local new_h, new_c = cell:forward(x, h, c)        -- x B×I, h and c B×H
--   local d_x, d_h, d_c = cell:backward(grad_h, grad_c) -- adds into grad.weight, grad.bias
--
-- weight is 3H × (H+I): X = [h, x] (h first), gates = X·weightᵀ + bias in the order input
-- gate, output gate, candidate. Parameters start uniform in ±1/sqrt(H), as in the tutorial.
local Module = require 'fused.nn.Module'
local functional = require 'fused.functional'
local blame = require 'fused.blame'
local inputs = require 'fused.nn.inputs'

local LLTMCell = Module:extend('LLTMCell')
LLTMCell.has_c = true

-- Shared with LLTMCellComposed: the parameters (and so their gradients) and the sizes.
function LLTMCell.init_parameters(self, input_features, state_size, opts)
  opts = self:tensor_options(opts, 1)
  self:check_size(input_features, 'input_features', 1)
  self:check_size(state_size, 'state_size', 1)
  self.input_features, self.state_size = input_features, state_size
  local stdv = 1 / math.sqrt(state_size)
  self:parameter('weight', { 3 * state_size, state_size + input_features }, opts):uniform(-stdv, stdv)
  self:parameter('bias', { 3 * state_size }, opts):uniform(-stdv, stdv)
end

-- PyTorch's names for the sizes, shared by LLTMCellComposed as init_parameters is.
function LLTMCell.extra_repr(self)
  return string.format('(input_size=%d, hidden_size=%d)', self.input_features, self.state_size)
end

function LLTMCell:__init(input_features, state_size, opts, ...)
  inputs.no_more('LLTMCell', 3, ...)
  LLTMCell.init_parameters(self, input_features, state_size, opts)
end

-- forward's x (B × input_features), h and c (B × state_size), on the module's dtype and device,
-- checked for fn (the cell's forward) with the names the user passed them under.
function LLTMCell.expect_inputs(self, fn, x, h, c, ...)
  inputs.no_more(fn, 3, ...)
  local w, I, H = self.weight, self.input_features, self.state_size
  inputs.floating(x, fn, 'x', w)
  if x.ndim ~= 2 or x.sizes[1] ~= I or x.sizes[0] < 1 then
    blame(string.format("%s: argument 'x' expected B x %d (B >= 1, input_features %d), got %s", fn,
                        I, I, inputs.shape_text(x)))
  end
  local state = { tonumber(x.sizes[0]), H }
  inputs.shaped(h, fn, 'h', w, state, "B from 'x' x state_size")
  inputs.shaped(c, fn, 'c', w, state, "B from 'x' x state_size")
end

-- backward's grad_h and grad_c, each of the shape of the state h (as forward's results).
function LLTMCell.expect_grads(self, fn, h, grad_h, grad_c)
  local shape = h:shape()
  inputs.shaped(grad_h, fn, 'grad_h', self.weight, shape, "forward's new_h")
  inputs.shaped(grad_c, fn, 'grad_c', self.weight, shape, "forward's new_c")
end

-- An h or c that is this cell's own output (h, c = cell:forward(x, h, c)) is copied first.
function LLTMCell:forward(x, h, c, ...)
  LLTMCell.expect_inputs(self, 'LLTMCell:forward', x, h, c, ...)
  x = x:contiguous() -- the engine views x as one step
  local b = self.buffers
  h, c = self:unshared(h), self:unshared(c)
  b.new_h, b.new_c, self.saved = functional.lltm_forward(x, self.weight, self.bias, h, c, {
    out = { self:buffer('new_h', self.weight), self:buffer('new_c', self.weight), self.saved } })
  return b.new_h, b.new_c
end

function LLTMCell:backward(grad_h, grad_c)
  local ctx, b = self:expect_saved(), self.buffers
  LLTMCell.expect_grads(self, 'LLTMCell:backward', ctx.h, grad_h, grad_c)
  b.d_x, b.d_h, b.d_c = functional.lltm_backward_accumulate(ctx, grad_h, grad_c, self.grad.weight,
    self.grad.bias, { out = { self:buffer('d_x', self.weight), self:buffer('d_h', self.weight),
                             self:buffer('d_c', self.weight) } })
  return b.d_x, b.d_h, b.d_c
end

return LLTMCell
