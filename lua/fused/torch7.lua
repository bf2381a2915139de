-- Torch7's tensor constructors, named as t:type() names the classes: fused.FloatTensor(2, 3),
-- fused.DoubleTensor({1, 2, 3}), fused.LongTensor(size), fused.BoolTensor, and fused.Tensor(...)
-- (fused.Tensor stays the table of tensor methods; calling it constructs). Sizes (numbers or a
-- fused.Size) give zeros: Torch7 left the memory as it was, and a first session's stray values
-- would look like a bug of the user's. A Lua table of values gives a tensor of them, as
-- fused.tensor. fused.Tensor is float32 where Torch7's default was double: every factory here
-- (zeros, randn, tensor, ...) makes float32 unless told, and there is no default-dtype setting,
-- so fused.Tensor(2, 3) + fused.zeros(2, 3) mix without a conversion.
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'
local dt = require 'fused.dtype'

local M = {}
local size_mt = getmetatable(tensor.Size({}))

local function constructor(class, dtype)
  return function(first, ...)
    local opts, more = { dtype = dtype }, select('#', ...) > 0
    local sizes = type(first) == 'number' and { first, ... }
      or not more and getmetatable(first) == size_mt and first
    if sizes then
      argcheck.parse_shape(sizes, class) -- its errors in the class's name
      return factory.zeros(sizes, opts)
    end
    if type(first) == 'table' and not more then return factory.tensor(first, opts) end
    if first == nil then return factory.zeros({ 0 }, opts) end -- Torch7's empty tensor
    error(string.format("%s: argument 'sizes' expected sizes (numbers or a fused.Size) or a Lua table of values, "
                        .. "got %s", class, argcheck.type_name(first) .. (more and ' and more' or '')), 2)
  end
end

-- One per dtype, named by C's list (fused.h's FUSED_DTYPES).
for id, class in pairs(dt.torch7_classes) do M[class] = constructor(class, dt.dtype_names[id]) end

local tensor_constructor = constructor('Tensor', 'float32')
setmetatable(tensor.Tensor, { __call = function(_, ...) return tensor_constructor(...) end })

return M
