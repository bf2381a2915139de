-- nn.Dropout(p): in training, each element zeroed with probability p and the others scaled by
-- 1/(1-p) (Torch7's default; v1 = true scales at evaluation instead); in evaluation the input
-- (times 1-p for v1).
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local Dropout, parent = class.class('nn.Dropout', 'nn.Module', nn)

function Dropout:__init(p, v1, inplace, stochasticInference)
  parent.__init(self)
  self.p = p or 0.5
  if type(self.p) ~= 'number' or self.p < 0 or self.p >= 1 then
    error('nn.Dropout: <Dropout> illegal percentage, must be 0 <= p < 1 (got ' .. tostring(p) .. ')', 3)
  end
  self.v2 = not v1
  self.inplace = inplace
  self.stochastic_inference = stochasticInference or false
end

function Dropout:updateOutput(input)
  if self.p > 0 and (self.train or self.stochastic_inference) then
    local keep = fused.lt(fused.rand(input:shape(), { dtype = input.dtype, device = input.device }), 1 - self.p)
    self.noise = keep:to(input.dtype)
    if self.v2 then self.noise:div_(1 - self.p) end
    self.output = fused.mul(input, self.noise)
  elseif not self.v2 then
    self.output = fused.mul(input, 1 - self.p)
  else
    self.output = input:clone()
  end
  return self.output
end

function Dropout:updateGradInput(input, gradOutput)
  if self.p > 0 and (self.train or self.stochastic_inference) then
    self.gradInput = fused.mul(gradOutput, self.noise)
  elseif not self.v2 then
    self.gradInput = fused.mul(gradOutput, 1 - self.p)
  else
    self.gradInput = gradOutput:clone()
  end
  return self.gradInput
end

function Dropout:setp(p) self.p = p end

function Dropout:__tostring__() return string.format('nn.Dropout(%g)', self.p) end

return Dropout
