-- nn.Criterion (Torch7's Criterion.lua): forward(input, target) gives the loss, a number, in
-- self.output; backward(input, target) the input's gradient, in self.gradInput.
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local Criterion = class.class('nn.Criterion', nn)

function Criterion:__init()
  self.gradInput = util.empty()
  self.output = 0
end

function Criterion:updateOutput(input, target) end

function Criterion:forward(input, target) return self:updateOutput(input, target) end

function Criterion:backward(input, target) return self:updateGradInput(input, target) end

function Criterion:updateGradInput(input, target) end

function Criterion:clone() return nn.Module.clone(self) end

function Criterion:type(name, tensorCache) return nn.Module.type(self, name, tensorCache) end
function Criterion:float() return self:type('torch.FloatTensor') end
function Criterion:double() return self:type('torch.DoubleTensor') end
function Criterion:cuda() return self:type('torch.CudaTensor') end

function Criterion:__tostring__() return class.typename(self) end

return Criterion
