-- nn.ParallelTable: module i gets input[i]; the output and the input's gradient are tables.
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local ParallelTable = class.class('nn.ParallelTable', 'nn.Container', nn)

function ParallelTable:__init()
  nn.Container.__init(self)
  self.output, self.gradInput = {}, {}
end

function ParallelTable:updateOutput(input)
  self.output = {}
  for i, m in ipairs(self.modules) do self.output[i] = m:updateOutput(input[i]) end
  return self.output
end

local function back(self, fn, input, gradOutput, scale)
  self.gradInput = {}
  for i, m in ipairs(self.modules) do self.gradInput[i] = m[fn](m, input[i], gradOutput[i], scale) end
  return self.gradInput
end

function ParallelTable:updateGradInput(input, gradOutput) return back(self, 'updateGradInput', input, gradOutput) end

function ParallelTable:backward(input, gradOutput, scale) return back(self, 'backward', input, gradOutput, scale or 1) end

function ParallelTable:accGradParameters(input, gradOutput, scale)
  for i, m in ipairs(self.modules) do m:accGradParameters(input[i], gradOutput[i], scale or 1) end
end

return ParallelTable
