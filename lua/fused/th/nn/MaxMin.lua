-- nn.Max(dimension[, nInputDims]) and nn.Min: the largest (smallest) entry along dimension,
-- the dim dropped; the input's gradient goes to the entry that was taken (Torch7's Max.lua).
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

for name, op in pairs({ Max = fused.max, Min = fused.min }) do
  local cls = class.class('nn.' .. name, 'nn.Module', nn)

  function cls:__init(dimension, nInputDims)
    nn.Module.__init(self)
    self.dimension, self.nInputDims = dimension or 1, nInputDims
  end

  local function dim_of(self, input)
    local d = self.dimension < 0 and input:dim() + self.dimension + 1 or self.dimension
    if self.nInputDims and input:dim() == self.nInputDims + 1 then d = d + 1 end
    return d
  end

  function cls:updateOutput(input)
    local d = dim_of(self, input)
    local values, indices = op(input, d)
    self.indices = indices
    self.output = input:dim() > 1 and values:squeeze(d) or values:view(1)
    return self.output
  end

  -- A one-hot mask of the taken entries times the gradient, broadcast along the dim.
  function cls:updateGradInput(input, gradOutput)
    local d = dim_of(self, input)
    local shape = {}
    for i = 1, input:dim() do shape[i] = 1 end
    shape[d] = input:size(d)
    local positions = fused.arange(1, input:size(d) + 1):to(input.device):view(shape)
    local taken = fused.eq(positions, self.indices)
    self.gradInput = fused.mul(taken, gradOutput:contiguous():view(self.indices:shape()))
    return self.gradInput
  end
end
