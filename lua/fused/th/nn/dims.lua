-- The modules that take one slice or rearrange dims, no parameters (Torch7's Select.lua,
-- Squeeze.lua, Unsqueeze.lua, Transpose.lua, Replicate.lua): the input's gradient is the
-- output's put back in the input's place and shape.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local function zeros_like(t) return fused.zeros(t:shape(), { dtype = t.dtype, device = t.device }) end

-- nn.Select(dimension, index): a copy of the input's slice index along dimension (negative:
-- from the end).
local Select = class.class('nn.Select', 'nn.Module', nn)

function Select:__init(dimension, index)
  nn.Module.__init(self)
  self.dimension, self.index = dimension, index
end

local function place(self, input)
  local dim = self.dimension < 0 and input:dim() + self.dimension + 1 or self.dimension
  local index = self.index < 0 and input:size(dim) + self.index + 1 or self.index
  return dim, index
end

function Select:updateOutput(input)
  self.output = input:select(place(self, input)):clone()
  return self.output
end

function Select:updateGradInput(input, gradOutput)
  self.gradInput = zeros_like(input)
  self.gradInput:select(place(self, input)):copy_(gradOutput)
  return self.gradInput
end

-- nn.Squeeze([dim[, numInputDims]]): the input without its dims of size 1 (or dim only; with
-- numInputDims, a batch dim beyond them is kept, as Torch7's).
local Squeeze = class.class('nn.Squeeze', 'nn.Module', nn)

function Squeeze:__init(dim, numInputDims)
  nn.Module.__init(self)
  self.dim, self.numInputDims = dim, numInputDims
end

function Squeeze:updateOutput(input)
  local dim, batch_of_one = self.dim, false
  if self.numInputDims and input:dim() == self.numInputDims + 1 then
    if dim then dim = dim + 1 else batch_of_one = input:size(1) == 1 end
  end
  local out = dim and input:squeeze(dim) or input:squeeze()
  if batch_of_one then out = out:unsqueeze(1) end
  self.output = out
  return out
end

function Squeeze:updateGradInput(input, gradOutput)
  self.gradInput = gradOutput:contiguous():view(input:shape())
  return self.gradInput
end

-- nn.Unsqueeze(pos[, numInputDims]): a dim of size 1 inserted at pos (after a batch dim beyond
-- numInputDims).
local Unsqueeze = class.class('nn.Unsqueeze', 'nn.Module', nn)

function Unsqueeze:__init(pos, numInputDims)
  nn.Module.__init(self)
  self.pos, self.numInputDims = pos, numInputDims
end

function Unsqueeze:updateOutput(input)
  local pos = self.pos + (self.numInputDims and input:dim() - self.numInputDims or 0)
  if pos < 1 or pos > input:dim() + 1 then
    error(string.format('nn.Unsqueeze: position %d is out of range for an input of %d dims', pos, input:dim()), 3)
  end
  self.output = input:unsqueeze(pos)
  return self.output
end

Unsqueeze.updateGradInput = Squeeze.updateGradInput

-- nn.Transpose({d1, d2}, ...): the dims swapped pair by pair, in order (a view).
local Transpose = class.class('nn.Transpose', 'nn.Module', nn)

function Transpose:__init(...)
  nn.Module.__init(self)
  self.permutations = { ... }
end

function Transpose:updateOutput(input)
  local out = input
  for _, p in ipairs(self.permutations) do out = out:transpose(p[1], p[2]) end
  self.output = out
  return out
end

function Transpose:updateGradInput(input, gradOutput)
  local g = gradOutput
  for i = #self.permutations, 1, -1 do g = g:transpose(self.permutations[i][1], self.permutations[i][2]) end
  self.gradInput = g
  return g
end

-- nn.Replicate(nFeature[, dim[, ndim]]): the input repeated nFeature times along a new dim
-- (1 by default; after a batch dim beyond ndim).
local Replicate = class.class('nn.Replicate', 'nn.Module', nn)

function Replicate:__init(nFeature, dim, ndim)
  nn.Module.__init(self)
  self.nfeatures, self.dim, self.ndim = nFeature, dim or 1, ndim
end

local function rdim(self, input)
  return self.dim + ((self.ndim and input:dim() > self.ndim) and 1 or 0)
end

function Replicate:updateOutput(input)
  local d = rdim(self, input)
  local shape = input:shape()
  table.insert(shape, d, self.nfeatures)
  self.output = input:unsqueeze(d):expand(shape):contiguous()
  return self.output
end

function Replicate:updateGradInput(input, gradOutput)
  self.gradInput = fused.sum(gradOutput, rdim(self, input)):view(input:shape())
  return self.gradInput
end
