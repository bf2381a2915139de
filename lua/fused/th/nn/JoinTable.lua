-- nn.JoinTable(dimension, nInputDims): the input table's tensors joined along dimension (one
-- more when they have a batch dim beyond nInputDims); each input's gradient its part.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local JoinTable, parent = class.class('nn.JoinTable', 'nn.Module', nn)

function JoinTable:__init(dimension, nInputDims)
  parent.__init(self)
  self.dimension, self.nInputDims = dimension, nInputDims
  self.gradInput = {}
end

local function dim_of(self, input)
  local d = self.dimension
  if d < 0 then d = input[1]:dim() + d + 1 end
  if self.nInputDims and input[1]:dim() == self.nInputDims + 1 then d = d + 1 end
  return d
end

function JoinTable:updateOutput(input)
  self.output = fused.cat(input, dim_of(self, input))
  return self.output
end

function JoinTable:updateGradInput(input, gradOutput)
  local d, offset = dim_of(self, input), 1
  self.gradInput = {}
  for i, x in ipairs(input) do
    self.gradInput[i] = gradOutput:narrow(d, offset, x:size(d)):clone()
    offset = offset + x:size(d)
  end
  return self.gradInput
end

return JoinTable
