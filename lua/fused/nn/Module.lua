-- The base of every module, in the Torch7 spirit: forward computes and keeps what backward
-- needs; backward returns the input gradients and ADDS into the parameter gradients.
--
--   local Cell = Module:extend('Cell')
--   function Cell:__init(...) ... end      -- called by Cell(...)
--   function Cell:forward(...) ... end
--   function Cell:backward(...) ... end
local dt = require 'fused.dtype'
local tensor = require 'fused.tensor'

local Module = { __name = 'Module' }
Module.__index = Module

-- A subclass: calling it makes an instance and runs __init.
function Module:extend(name)
  local class = setmetatable({ __name = name }, {
    __index = self,
    __call = function(cls, ...)
      local obj = setmetatable({}, cls)
      obj:__init(...)
      return obj
    end,
  })
  class.__index = class
  class.__tostring = self.__tostring
  return class
end

-- Modules without an __init of their own take no arguments: MSELoss({reduction = 'sum'}) is
-- an error, not a silent mean.
function Module:__init(...)
  if select('#', ...) > 0 then
    error(string.format('%s: expected no arguments, got %d', self.__name, select('#', ...)), 3)
  end
end

function Module:forward() error(self.__name .. ':forward is not implemented', 2) end
function Module:backward() error(self.__name .. ':backward is not implemented', 2) end

-- Modules held in fields, in a stable order (sorted by field name).
function Module:children()
  local names = {}
  for k, v in pairs(self) do
    if type(v) == 'table' and getmetatable(v) and getmetatable(v).__index and v.parameters then
      names[#names + 1] = k
    end
  end
  table.sort(names)
  local list = {}
  for i, k in ipairs(names) do list[i] = self[k] end
  return list
end

-- {weight, bias}, {gradWeight, gradBias}, then those of child modules.
function Module:parameters()
  local params, grads = {}, {}
  if self.weight then params[#params + 1], grads[#grads + 1] = self.weight, self.gradWeight end
  if self.bias then params[#params + 1], grads[#grads + 1] = self.bias, self.gradBias end
  for _, child in ipairs(self:children()) do
    local p, g = child:parameters()
    for i = 1, #p do params[#params + 1], grads[#grads + 1] = p[i], g[i] end
  end
  return params, grads
end

function Module:zeroGradParameters()
  local _, grads = self:parameters()
  for _, g in ipairs(grads) do g:zero() end
  return self
end

-- Drops what the latest forward kept: a backward after this is an error.
function Module:clearState()
  self.saved = nil
  for _, child in ipairs(self:children()) do child:clearState() end
  return self
end

-- Converts every tensor field (parameters, gradients, buffers) and every child; what the
-- latest forward kept is dropped, since it lives on the old device or dtype.
function Module:to(a, b)
  tensor.parse_to(a, b, self.__name .. ':to', 3)
  for k, v in pairs(self) do
    if tensor.is_tensor(v) then self[k] = v:to(a, b) end
  end
  for _, child in ipairs(self:children()) do child:to(a, b) end
  self.saved = nil
  return self
end

function Module:float() return self:to('float32') end
function Module:double() return self:to('float64') end
function Module:cuda() return self:to('cuda') end
function Module:cpu() return self:to('cpu') end

-- For constructors: n must be a positive integer (arg names it in the error, which is blamed
-- on the constructor's caller; `depth` counts the calls between __init and here, default 0).
function Module:check_size(n, arg, depth)
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then
    error(string.format("%s: argument '%s' expected a positive integer, got %s", self.__name,
                        arg, tostring(n)), 4 + (depth or 0))
  end
end

-- For constructors: opts ({dtype=, device=} or nil), checked in the module's name, as the
-- options of its tensors ({dtype = name, device = name}). depth as check_size's.
function Module:tensor_options(opts, depth)
  local dtype, device = dt.parse(opts, self.__name, 5 + (depth or 0))
  return { dtype = dt.dtype_names[dtype], device = dt.device_names[device] }
end

-- Raised by backward when no forward kept anything.
function Module:expect_saved(fn)
  if not self.saved then
    error(string.format('%s:%s: no forward to go back through (call forward first)',
                        self.__name, fn or 'backward'), 3)
  end
  return self.saved
end

function Module:__tostring()
  local p = self:parameters()
  local shapes = {}
  for i, t in ipairs(p) do shapes[i] = table.concat(t:shape(), 'x') end
  return string.format('fused.nn.%s(%s)', self.__name, table.concat(shapes, ', '))
end

return Module
