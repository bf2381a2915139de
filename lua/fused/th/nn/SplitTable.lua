-- nn.SplitTable(dimension, nInputDims): the table of the input's slices along dimension (one
-- more with a batch dim beyond nInputDims); the input's gradient their gradients stacked.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local SplitTable, parent = class.class('nn.SplitTable', 'nn.Module', nn)

function SplitTable:__init(dimension, nInputDims)
  parent.__init(self)
  self.dimension, self.nInputDims = dimension, nInputDims
  self.output = {}
end

local function dim_of(self, input)
  local d = self.dimension
  if d < 0 then d = input:dim() + d + 1 end
  if self.nInputDims and input:dim() == self.nInputDims + 1 then d = d + 1 end
  return d
end

function SplitTable:updateOutput(input)
  local d = dim_of(self, input)
  self.output = {}
  for i = 1, input:size(d) do self.output[i] = input:select(d, i) end
  return self.output
end

function SplitTable:updateGradInput(input, gradOutput)
  self.gradInput = fused.stack(gradOutput, dim_of(self, input))
  return self.gradInput
end

return SplitTable
