-- The LLTM cell of the PyTorch C++/CUDA extension tutorial, fused in C: one GEMM and one
-- pointwise pass forward, one pointwise pass and the GEMMs backward.
--
--   local cell = fused.nn.LLTMCell(input_features, state_size, {dtype=, device=})
--   local new_h, new_c = cell:forward(x, h, c)        -- x B×I, h and c B×H
--   local d_x, d_h, d_c = cell:backward(grad_h, grad_c) -- adds into gradWeight, gradBias
--
-- weight is 3H × (H+I): X = [h, x] (h first), gates = X·weightᵀ + bias in the order input
-- gate, output gate, candidate. Parameters start uniform in ±1/sqrt(H), as in the tutorial.
local Module = require 'fused.nn.Module'
local functional = require 'fused.functional'
local tensor = require 'fused.tensor'

local LLTMCell = Module:extend('LLTMCell')

-- Shared with LLTMCellComposed and LLTM: the parameters, their gradients and the sizes.
function LLTMCell.init_parameters(self, input_features, state_size, opts)
  opts = self:tensor_options(opts, 1)
  self:check_size(input_features, 'input_features', 1)
  self:check_size(state_size, 'state_size', 1)
  self.input_features, self.state_size = input_features, state_size
  local stdv = 1 / math.sqrt(state_size)
  self.weight = tensor.empty({ 3 * state_size, state_size + input_features }, opts)
  self.weight:uniform(-stdv, stdv)
  self.bias = tensor.empty({ 3 * state_size }, opts):uniform(-stdv, stdv)
  self.gradWeight = tensor.zeros(self.weight:shape(), opts)
  self.gradBias = tensor.zeros(self.bias:shape(), opts)
end

function LLTMCell:__init(input_features, state_size, opts)
  LLTMCell.init_parameters(self, input_features, state_size, opts)
end

function LLTMCell:forward(x, h, c)
  local new_h, new_c, ctx = functional.lltm_forward(x, self.weight, self.bias, h, c)
  self.saved = ctx
  return new_h, new_c
end

function LLTMCell:backward(grad_h, grad_c)
  local ctx = self:expect_saved()
  return functional.lltm_backward_accumulate(ctx, grad_h, grad_c, self.gradWeight, self.gradBias)
end

return LLTMCell
