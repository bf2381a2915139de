-- nn.CAddTable, nn.CSubTable, nn.CMulTable: the element-wise sum, difference, product of the
-- input table's tensors; each input's gradient a tensor of its own.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local function product_except(input, skip)
  local p
  for j, x in ipairs(input) do
    if j ~= skip then p = p and fused.mul(p, x) or x end
  end
  return p
end

local ROWS = {
  CAddTable = {
    function(input)
      local sum = input[1]:clone()
      for i = 2, #input do sum:add_(input[i]) end
      return sum
    end,
    function(_, g) return g:clone() end,
  },
  CSubTable = {
    function(input) return fused.sub(input[1], input[2]) end,
    function(_, g, i) return i == 1 and g:clone() or fused.neg(g) end,
  },
  CMulTable = {
    function(input) return product_except(input, 0):clone() end,
    function(input, g, i) return #input == 1 and g:clone() or fused.mul(g, product_except(input, i)) end,
  },
}

for name, row in pairs(ROWS) do
  local cls = class.class('nn.' .. name, 'nn.Module', nn)
  function cls:__init(inplace)
    nn.Module.__init(self)
    self.inplace = inplace -- Torch7's: the output is always a new tensor here
    self.gradInput = {}
  end
  function cls:updateOutput(input)
    if type(input) ~= 'table' or #input == 0 then
      error(string.format('nn.%s: input expected a table of tensors, got %s', name, type(input)), 3)
    end
    self.output = row[1](input)
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    self.gradInput = {}
    for i = 1, #input do self.gradInput[i] = row[2](input, gradOutput, i) end
    return self.gradInput
  end
end
