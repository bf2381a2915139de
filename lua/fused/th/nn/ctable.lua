-- nn.CAddTable, nn.CSubTable, nn.CMulTable: the element-wise sum, difference, product of the
-- input table's tensors; each input's gradient a tensor of its own.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

-- The input table's tensors broadcast together, as fused's ops do (Torch7 wanted one
-- shape: the same tensors give the same results); each input's gradient summed back to its
-- shape.
local function product_except(input, skip)
  local p
  for j, x in ipairs(input) do
    if j ~= skip then p = p and fused.mul(p, x) or x end
  end
  return p
end

local function to_shape(g, x)
  if table.concat(g:shape(), 'x') == table.concat(x:shape(), 'x') then return g:clone() end
  return fused.sum_to_size(g, x:shape())
end

local ROWS = {
  CAddTable = {
    function(input)
      local sum = input[1]
      for i = 2, #input do sum = fused.add(sum, input[i]) end
      return #input == 1 and sum:clone() or sum
    end,
    function(input, g, i) return to_shape(g, input[i]) end,
  },
  CSubTable = {
    function(input) return fused.sub(input[1], input[2]) end,
    function(input, g, i) return i == 1 and to_shape(g, input[1]) or fused.neg(to_shape(g, input[2])) end,
  },
  CMulTable = {
    function(input) return #input == 1 and input[1]:clone() or product_except(input, 0) end,
    function(input, g, i) return #input == 1 and g:clone() or to_shape(fused.mul(g, product_except(input, i)), input[i]) end,
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
