-- nn.LookupTable(nIndex, nOutput): row i of weight for each index i of the input (1-D, or a
-- batch of rows: 2-D), weight drawn from N(0, 1) as Torch7's. Indices may be any tensor of
-- whole numbers (Torch7 programs feed DoubleTensors of them).
local fused = require 'fused'
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local LookupTable, parent = class.class('nn.LookupTable', 'nn.Module', nn)

function LookupTable:__init(nIndex, nOutput)
  parent.__init(self)
  local opts = util.options()
  self.weight = fused.empty({ nIndex, nOutput }, opts)
  self.gradWeight = fused.zeros({ nIndex, nOutput }, opts)
  self:reset()
end

function LookupTable:reset(stdv)
  self.weight:normal_(0, stdv or 1)
  return self
end

local function indices(input)
  local d = util.is_tensor(input) and input:dim()
  if d ~= 1 and d ~= 2 then
    error(string.format('nn.LookupTable: input expected a vector or a matrix of indices, got %s',
                        d and d .. ' dims' or type(input)), 4)
  end
  return input:to('int64'):reshape(-1)
end

function LookupTable:updateOutput(input)
  local rows = fused.index_select(self.weight, 1, indices(input))
  if input:dim() == 2 then rows = rows:view(input:size(1), input:size(2), self.weight:size(2)) end
  self.output = rows
  return self.output
end

-- Indices have no gradient: zeros of the input's shape, as Torch7's.
function LookupTable:updateGradInput(input, gradOutput)
  self.gradInput = fused.zeros(input:shape(), { dtype = self.weight.dtype, device = self.weight.device })
  return self.gradInput
end

function LookupTable:accGradParameters(input, gradOutput, scale)
  local g = gradOutput:reshape(-1, self.weight:size(2))
  self.gradWeight:index_add_(1, indices(input), fused.mul(g, scale or 1))
end

function LookupTable:__tostring__()
  return string.format('nn.LookupTable(%d -> %d)', self.weight:size(1), self.weight:size(2))
end

return LookupTable
