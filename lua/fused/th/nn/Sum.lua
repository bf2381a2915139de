-- nn.Sum(dimension, nInputDims, sizeAverage, squeeze) and nn.Mean(dimension, nInputDims): the
-- sum (mean) along dimension, the dim dropped unless squeeze is false; with nInputDims, an
-- input of more dims has a leading batch dim and dimension counts after it (Torch7's Sum.lua).
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local Sum, parent = class.class('nn.Sum', 'nn.Module', nn)

function Sum:__init(dimension, nInputDims, sizeAverage, squeeze)
  parent.__init(self)
  self.dimension = dimension or 1
  self.nInputDims = nInputDims
  self.sizeAverage = sizeAverage or false
  self.squeeze = squeeze == nil and true or squeeze
end

local function dim_of(self, input)
  local d = self.dimension
  if d < 0 then d = input:dim() + d + 1 end
  if self.nInputDims and input:dim() == self.nInputDims + 1 then d = d + 1 end
  return d
end

function Sum:updateOutput(input)
  local d = dim_of(self, input)
  local out = fused.sum(input, d)
  if self.sizeAverage then out:div_(input:size(d)) end
  if self.squeeze and input:dim() > 1 then out = out:squeeze(d) end
  self.output = out
  return out
end

function Sum:updateGradInput(input, gradOutput)
  local d = dim_of(self, input)
  local shape = input:shape()
  shape[d] = 1
  local g = gradOutput:contiguous():view(shape):expand(input:shape())
  self.gradInput = self.sizeAverage and fused.div(g, input:size(d)) or g:contiguous()
  return self.gradInput
end

local Mean = class.class('nn.Mean', 'nn.Sum', nn)

function Mean:__init(dimension, nInputDims)
  Sum.__init(self, dimension, nInputDims, true)
end
