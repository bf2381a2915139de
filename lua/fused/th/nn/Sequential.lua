-- nn.Sequential: each module's output is the next one's input; backward goes through them
-- in reverse, each given the input its forward had.
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local Sequential = class.class('nn.Sequential', 'nn.Container', nn)

function Sequential:insert(module, index)
  index = index or #self.modules + 1
  table.insert(self.modules, index, nn.Container.adopt(module, 'nn.Sequential:insert'))
  return self
end

function Sequential:remove(index)
  return table.remove(self.modules, index or #self.modules)
end

function Sequential:updateOutput(input)
  local current = input
  for _, m in ipairs(self.modules) do current = m:updateOutput(current) end
  self.output = current
  return current
end

-- fn is 'updateGradInput' or 'backward': each module, last to first, gets the input its
-- forward had (the previous module's output).
local function back(self, fn, input, gradOutput, scale)
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    current = self.modules[i][fn](self.modules[i], self.modules[i - 1].output, current, scale)
  end
  if self.modules[1] then current = self.modules[1][fn](self.modules[1], input, current, scale) end
  self.gradInput = current
  return current
end

function Sequential:updateGradInput(input, gradOutput) return back(self, 'updateGradInput', input, gradOutput) end

function Sequential:backward(input, gradOutput, scale) return back(self, 'backward', input, gradOutput, scale or 1) end

function Sequential:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    local m = self.modules[i]
    m:accGradParameters(self.modules[i - 1].output, current, scale)
    current = m.gradInput
  end
  if self.modules[1] then self.modules[1]:accGradParameters(input, current, scale) end
end

function Sequential:__tostring__() return self:describe(true) end

return Sequential
