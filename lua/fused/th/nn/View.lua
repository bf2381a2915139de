-- nn.View(sizes...) and nn.Reshape(sizes...[, batchMode]): the input's elements in another
-- shape, with a leading batch dim kept as Torch7 decided it (View.lua, Reshape.lua).
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local function sizes_of(fn, ...)
  local list = select('#', ...) == 1 and type((...)) == 'table' and { unpack((...)) } or { ... }
  if util.is_tensor(list[1]) then list = list[1]:totable() end
  for i, s in ipairs(list) do
    if type(s) ~= 'number' or s ~= math.floor(s) or (s < 1 and s ~= -1) then
      error(string.format("%s: argument 'size' %d expected a positive integer or -1, got %s", fn, i, tostring(s)), 4)
    end
  end
  return list
end

local function product(list)
  local n = 1
  for _, s in ipairs(list) do if s > 0 then n = n * s end end
  return n
end

local function backward(self, input, gradOutput)
  self.gradInput = gradOutput:contiguous():view(input:shape())
  return self.gradInput
end

local View = class.class('nn.View', 'nn.Module', nn)

function View:__init(...)
  nn.Module.__init(self)
  self:resetSize(...)
end

function View:resetSize(...)
  self.size = sizes_of('nn.View', ...)
  self.numElements = product(self.size)
  return self
end

function View:setNumInputDims(n)
  self.numInputDims = n
  return self
end

-- Torch7's batchsize(): the leading dim a batch, or nil.
local function batch(input, size, numInputDims, numElements)
  local shape, n = input:shape(), input:dim()
  local maxdim = numInputDims or n
  local ine = 1
  for i = n, n - maxdim + 1, -1 do ine = ine * shape[i] end
  if ine % numElements ~= 0 then
    error(string.format('nn.View: input view (%s) and desired view (%s) do not match',
                        table.concat(shape, 'x'), table.concat(size, 'x')), 4)
  end
  local bsz = ine / numElements
  for _, s in ipairs(size) do if s == -1 then bsz = 1 break end end
  for i = n - maxdim, 1, -1 do bsz = bsz * shape[i] end
  if bsz == 1 and (not numInputDims or n <= numInputDims) then return nil end
  return bsz
end

function View:updateOutput(input)
  local bsz = batch(input, self.size, self.numInputDims, self.numElements)
  local shape = bsz and { bsz, unpack(self.size) } or self.size
  self.output = input:contiguous():view(shape)
  return self.output
end

View.updateGradInput = backward

function View:__tostring__() return 'nn.View(' .. table.concat(self.size, ', ') .. ')' end

local Reshape = class.class('nn.Reshape', 'nn.Module', nn)

function Reshape:__init(...)
  nn.Module.__init(self)
  local args = { ... }
  if type(args[#args]) == 'boolean' then self.batchMode = table.remove(args) end
  self.size = sizes_of('nn.Reshape', unpack(args))
  self.nelement = product(self.size)
end

function Reshape:updateOutput(input)
  local shape = self.size
  if self.batchMode == true or (self.batchMode == nil and not (input:numel() == self.nelement and input:size(1) ~= 1)) then
    shape = { input:size(1), unpack(self.size) }
  end
  self.output = input:contiguous():view(shape)
  return self.output
end

Reshape.updateGradInput = backward

function Reshape:__tostring__() return 'nn.Reshape(' .. table.concat(self.size, 'x') .. ')' end
