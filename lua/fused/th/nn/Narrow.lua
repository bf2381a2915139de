-- nn.Narrow(dimension, offset[, length]): a copy of the input's elements offset ..
-- offset + length - 1 along dimension (a negative length counts from the end, as Torch7's).
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local Narrow, parent = class.class('nn.Narrow', 'nn.Module', nn)

function Narrow:__init(dimension, offset, length)
  parent.__init(self)
  self.dimension, self.index, self.length = dimension, offset, length or 1
end

local function place(self, input)
  local dim = self.dimension < 0 and input:dim() + self.dimension + 1 or self.dimension
  local offset = self.index < 0 and input:size(dim) + self.index + 1 or self.index
  local length = self.length < 0 and input:size(dim) - offset + self.length + 2 or self.length
  return dim, offset, length
end

function Narrow:updateOutput(input)
  self.output = input:narrow(place(self, input)):clone()
  return self.output
end

function Narrow:updateGradInput(input, gradOutput)
  self.gradInput = fused.zeros(input:shape(), { dtype = gradOutput.dtype, device = gradOutput.device })
  self.gradInput:narrow(place(self, input)):copy_(gradOutput)
  return self.gradInput
end

return Narrow
