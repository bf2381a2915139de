-- The modules with a learnt element-wise parameter (Torch7's Mul.lua, Add.lua, CMul.lua): one
-- factor, a bias of a given size (or one number), a factor per element broadcast over a batch.
local fused = require 'fused'
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local function param(shape) return fused.empty(shape, util.options()), fused.zeros(shape, util.options()) end

-- nn.Mul(): y = w x with one learnt w, drawn from U(-1, 1) as Torch7's (stdv 1/sqrt(1)).
local Mul = class.class('nn.Mul', 'nn.Module', nn)

function Mul:__init()
  nn.Module.__init(self)
  self.weight, self.gradWeight = param({ 1 })
  self:reset()
end

function Mul:reset(stdv)
  stdv = stdv or 1
  self.weight:uniform_(-stdv, stdv)
end

function Mul:updateOutput(input)
  self.output = fused.mul(input, self.weight[1])
  return self.output
end

function Mul:updateGradInput(input, gradOutput)
  self.gradInput = fused.mul(gradOutput, self.weight[1])
  return self.gradInput
end

function Mul:accGradParameters(input, gradOutput, scale)
  self.gradWeight:add_((scale or 1) * fused.sum(fused.mul(input, gradOutput)))
end

-- nn.Add(inputSize[, scalar]): y = x + b, b of inputSize (one number when scalar), the batch
-- broadcast; drawn from U(-1/sqrt(inputSize), 1/sqrt(inputSize)).
local Add = class.class('nn.Add', 'nn.Module', nn)

function Add:__init(inputSize, scalar)
  nn.Module.__init(self)
  local size = scalar and 1 or inputSize
  self.bias, self.gradBias = param({ size })
  self.scalar = scalar
  self:reset()
end

function Add:reset(stdv)
  stdv = stdv or 1 / math.sqrt(self.bias:size(1))
  self.bias:uniform_(-stdv, stdv)
end

-- b shaped to broadcast over input: a number, the input's own shape, or a row per batch entry.
local function shaped(self, input)
  if self.scalar then return self.bias[1] end
  if input:numel() == self.bias:numel() then return self.bias:view(input:shape()) end
  local shape = input:shape()
  shape[1] = 1
  return self.bias:view(shape)
end

function Add:updateOutput(input)
  self.output = fused.add(input, shaped(self, input))
  return self.output
end

function Add:updateGradInput(input, gradOutput)
  self.gradInput = gradOutput:clone()
  return self.gradInput
end

function Add:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if self.scalar then
    self.gradBias:add_(scale * fused.sum(gradOutput))
  else
    local g = input:numel() == self.bias:numel() and gradOutput or fused.sum(gradOutput, 1)
    self.gradBias:add_(g:contiguous():view(-1), { alpha = scale })
  end
end

-- nn.CMul(size...): y = x * w element-wise, w of the given sizes broadcast over a batch,
-- drawn from U(-1/sqrt(n), 1/sqrt(n)) for its n elements.
local CMul = class.class('nn.CMul', 'nn.Module', nn)

function CMul:__init(...)
  nn.Module.__init(self)
  local size = select('#', ...) == 1 and type((...)) == 'table' and (...) or { ... }
  self.size = size
  self.weight, self.gradWeight = param(size)
  self:reset()
end

function CMul:reset(stdv)
  stdv = stdv or 1 / math.sqrt(self.weight:numel())
  self.weight:uniform_(-stdv, stdv)
end

-- w shaped to broadcast over input: the input's own shape, or one more leading dim.
local function weight_for(self, input)
  if input:numel() == self.weight:numel() then return self.weight:view(input:shape()) end
  local shape = { 1 }
  for _, s in ipairs(self.weight:shape()) do shape[#shape + 1] = s end
  return self.weight:view(shape)
end

function CMul:updateOutput(input)
  self.output = fused.mul(input, weight_for(self, input))
  return self.output
end

function CMul:updateGradInput(input, gradOutput)
  self.gradInput = fused.mul(gradOutput, weight_for(self, input))
  return self.gradInput
end

function CMul:accGradParameters(input, gradOutput, scale)
  local g = fused.mul(input, gradOutput)
  if input:numel() ~= self.weight:numel() then g = fused.sum(g, 1) end
  self.gradWeight:add_(g:contiguous():view(self.weight:shape()), { alpha = scale or 1 })
end
