-- nn.MM([transA[, transB]]): the product of the input table's two matrices {A, B}, each
-- transposed first when asked, or of two batches of them (3-D: bmm), as Torch7's MM.lua.
local fused = require 'fused'
local class = require 'fused.th.class'
local nn = require 'fused.th.nn.namespace'

local MM = class.class('nn.MM', 'nn.Module', nn)

function MM:__init(transA, transB)
  nn.Module.__init(self)
  self.transA, self.transB = transA or false, transB or false
  self.gradInput = {}
end

local function operands(self, input)
  local a, b = input[1], input[2]
  if type(input) ~= 'table' or not fused.is_tensor(a) or not fused.is_tensor(b) or a:dim() ~= b:dim()
     or (a:dim() ~= 2 and a:dim() ~= 3) then
    error('nn.MM: input expected a table of two matrices, or of two batches of them (3-D)', 4)
  end
  local last = a:dim()
  if self.transA then a = a:transpose(last - 1, last) end
  if self.transB then b = b:transpose(last - 1, last) end
  return a, b, last
end

local function product(a, b) return a:dim() == 3 and fused.bmm(a, b) or fused.matmul(a, b) end

function MM:updateOutput(input)
  local a, b = operands(self, input)
  self.output = product(a, b)
  return self.output
end

function MM:updateGradInput(input, gradOutput)
  local a, b, last = operands(self, input)
  local function t(x) return x:transpose(last - 1, last) end
  local ga, gb = product(gradOutput, t(b)), product(t(a), gradOutput)
  if self.transA then ga = t(ga):contiguous() end
  if self.transB then gb = t(gb):contiguous() end
  self.gradInput = { ga, gb }
  return self.gradInput
end
