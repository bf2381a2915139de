-- nn.Concat(dimension): every module gets the input, their outputs joined along dimension;
-- nn.Parallel(inputDimension, outputDimension): module i gets the input's slice i along
-- inputDimension, their outputs joined along outputDimension (Torch7's Concat.lua,
-- Parallel.lua). Each module's gradient is its part of gradOutput.
local fused = require 'fused'
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

-- The dim the outputs join along.
local function out_dim(self) return self.outputDimension or self.dimension end

-- For each module: its input, and its part of gradOutput (when given) along the output dim.
local function parts(self, input, gradOutput)
  local list, offset = {}, 1
  for i, m in ipairs(self.modules) do
    local x = self.inputDimension and input:select(self.inputDimension, i) or input
    local g
    if gradOutput then
      local n = m.output:size(out_dim(self))
      g = gradOutput:narrow(out_dim(self), offset, n)
      offset = offset + n
    end
    list[i] = { x, g }
  end
  return list
end

local function define(cls)
  function cls:updateOutput(input)
    local outs = {}
    for i, p in ipairs(parts(self, input)) do outs[i] = self.modules[i]:updateOutput(p[1]) end
    self.output = fused.cat(outs, out_dim(self))
    return self.output
  end

  -- fn: 'updateGradInput' or 'backward'; the input's gradient: Concat's the sum of the
  -- modules', Parallel's theirs stacked along inputDimension.
  local function back(self, fn, input, gradOutput, scale)
    local grads = {}
    for i, p in ipairs(parts(self, input, gradOutput)) do
      local m = self.modules[i]
      grads[i] = m[fn](m, p[1], p[2], scale)
    end
    if self.inputDimension then
      self.gradInput = fused.stack(grads, self.inputDimension)
    else
      local sum = grads[1]
      for i = 2, #grads do sum = util.add(sum, grads[i]) end
      self.gradInput = sum
    end
    return self.gradInput
  end

  function cls:updateGradInput(input, gradOutput) return back(self, 'updateGradInput', input, gradOutput) end

  function cls:backward(input, gradOutput, scale) return back(self, 'backward', input, gradOutput, scale or 1) end

  function cls:accGradParameters(input, gradOutput, scale)
    for i, p in ipairs(parts(self, input, gradOutput)) do self.modules[i]:accGradParameters(p[1], p[2], scale or 1) end
  end

  function cls:accUpdateGradParameters(input, gradOutput, lr)
    for i, p in ipairs(parts(self, input, gradOutput)) do self.modules[i]:accUpdateGradParameters(p[1], p[2], lr) end
  end
end

local Concat = class.class('nn.Concat', 'nn.Container', nn)

function Concat:__init(dimension)
  nn.Container.__init(self)
  self.dimension = dimension
end

define(Concat)

local Parallel = class.class('nn.Parallel', 'nn.Container', nn)

function Parallel:__init(inputDimension, outputDimension)
  nn.Container.__init(self)
  self.inputDimension, self.outputDimension = inputDimension, outputDimension
end

define(Parallel)
