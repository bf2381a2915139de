-- nn.SoftMax and nn.LogSoftMax over the features: the only dim of a vector, dim 2 of a batch
-- of rows, dim 1 of a 3-D (features x height x width) input and dim 2 of a batch of those, as
-- Torch7's.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local FEATURE_DIM = { 1, 2, 1, 2 }

for name, ops in pairs({ SoftMax = { fused.softmax, fused.softmax_backward },
                         LogSoftMax = { fused.log_softmax, fused.log_softmax_backward } }) do
  local cls = class.class('nn.' .. name, 'nn.Module', nn)
  local function dim(input)
    local d = FEATURE_DIM[input:dim()]
    if not d then error(string.format('nn.%s: input expected 1 to 4 dims, got %d', name, input:dim()), 4) end
    return d
  end
  function cls:updateOutput(input)
    self.output = ops[1](input, dim(input))
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    self.gradInput = ops[2](gradOutput, self.output, dim(input))
    return self.gradInput
  end
end
