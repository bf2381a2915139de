-- nn.Linear(inputSize, outputSize[, bias]): y = x W^T + b, for x of inputSize or a batch
-- (rows); weight and bias drawn from U(-1/sqrt(inputSize), 1/sqrt(inputSize)), as Torch7's.
local fused = require 'fused'
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local Linear, parent = class.class('nn.Linear', 'nn.Module', nn)

function Linear:__init(inputSize, outputSize, bias)
  parent.__init(self)
  local opts = util.options()
  self.weight = fused.empty({ outputSize, inputSize }, opts)
  self.gradWeight = fused.zeros({ outputSize, inputSize }, opts)
  if bias ~= false then
    self.bias = fused.empty({ outputSize }, opts)
    self.gradBias = fused.zeros({ outputSize }, opts)
  end
  self:reset()
end

function Linear:noBias()
  self.bias, self.gradBias = nil, nil
  return self
end

function Linear:reset(stdv)
  stdv = stdv or 1 / math.sqrt(self.weight:size(2))
  self.weight:uniform_(-stdv, stdv)
  if self.bias then self.bias:uniform_(-stdv, stdv) end
  return self
end

local function expect_input(self, input)
  local d = util.is_tensor(input) and input:dim()
  if d ~= 1 and d ~= 2 then
    error(string.format('nn.Linear: input expected a vector or a matrix (a batch of rows), got %s',
                        d and d .. ' dims' or type(input)), 4)
  end
  return d
end

function Linear:updateOutput(input)
  if expect_input(self, input) == 1 then
    self.output = fused.mv(self.weight, input)
    if self.bias then self.output:add_(self.bias) end
  elseif self.bias then
    self.output = fused.addmm(self.bias, input, self.weight:t())
  else
    self.output = fused.matmul(input, self.weight:t())
  end
  return self.output
end

function Linear:updateGradInput(input, gradOutput)
  if expect_input(self, input) == 1 then
    self.gradInput = fused.mv(self.weight:t(), gradOutput)
  else
    self.gradInput = fused.matmul(gradOutput, self.weight)
  end
  return self.gradInput
end

function Linear:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if input:dim() == 1 then
    self.gradWeight:add_(fused.outer(gradOutput, input), { alpha = scale })
    if self.bias then self.gradBias:add_(gradOutput, { alpha = scale }) end
  else
    self.gradWeight:addmm_(gradOutput:t(), input, { alpha = scale })
    if self.bias then self.gradBias:add_(fused.sum(gradOutput, 1):view(-1), { alpha = scale }) end
  end
end

function Linear:__tostring__()
  return string.format('nn.Linear(%d -> %d%s)', self.weight:size(2), self.weight:size(1),
                       self.bias and '' or ' without bias')
end

return Linear
