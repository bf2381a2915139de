-- nn.SelectTable(index) and nn.NarrowTable(offset, length): entry index of the input table
-- (negative: from the end), or the table of entries offset .. offset + length - 1; the
-- input's gradient has zeros for the entries not taken.
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

-- The input table's gradient: gradOutput's entries at the taken places, zeros elsewhere.
local function gradient(input, taken)
  local g = {}
  for i, x in ipairs(input) do g[i] = taken[i] or util.zeros_like(x) end
  return g
end

local SelectTable = class.class('nn.SelectTable', 'nn.Module', nn)

function SelectTable:__init(index)
  nn.Module.__init(self)
  self.index = index
  self.gradInput = {}
end

local function position(self, input)
  local i = self.index < 0 and #input + self.index + 1 or self.index
  if input[i] == nil then
    error(string.format('nn.SelectTable: index %d is out of range for a table of %d', self.index, #input), 4)
  end
  return i
end

function SelectTable:updateOutput(input)
  self.output = input[position(self, input)]
  return self.output
end

function SelectTable:updateGradInput(input, gradOutput)
  self.gradInput = gradient(input, { [position(self, input)] = gradOutput })
  return self.gradInput
end

function SelectTable:__tostring__() return 'nn.SelectTable(' .. self.index .. ')' end

local NarrowTable = class.class('nn.NarrowTable', 'nn.Module', nn)

function NarrowTable:__init(offset, length)
  nn.Module.__init(self)
  self.offset, self.length = offset, length or 1
  self.output, self.gradInput = {}, {}
end

function NarrowTable:updateOutput(input)
  self.output = {}
  for i = 1, self.length do self.output[i] = input[self.offset + i - 1] end
  return self.output
end

function NarrowTable:updateGradInput(input, gradOutput)
  local taken = {}
  for i = 1, self.length do taken[self.offset + i - 1] = gradOutput[i] end
  self.gradInput = gradient(input, taken)
  return self.gradInput
end
