-- nn.ConcatTable: every module gets the same input; the output is the table of their outputs,
-- the input's gradient the sum of theirs (tensors, or tables of them).
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local ConcatTable = class.class('nn.ConcatTable', 'nn.Container', nn)

function ConcatTable:__init()
  nn.Container.__init(self)
  self.output = {}
end

function ConcatTable:updateOutput(input)
  self.output = {}
  for i, m in ipairs(self.modules) do self.output[i] = m:updateOutput(input) end
  return self.output
end

local function back(self, fn, input, gradOutput, scale)
  local sum
  for i, m in ipairs(self.modules) do
    local g = m[fn](m, input, gradOutput[i], scale)
    sum = sum and util.add(sum, g) or g
  end
  self.gradInput = sum
  return sum
end

function ConcatTable:updateGradInput(input, gradOutput) return back(self, 'updateGradInput', input, gradOutput) end

function ConcatTable:backward(input, gradOutput, scale) return back(self, 'backward', input, gradOutput, scale or 1) end

function ConcatTable:accGradParameters(input, gradOutput, scale)
  for i, m in ipairs(self.modules) do m:accGradParameters(input, gradOutput[i], scale or 1) end
end

return ConcatTable
