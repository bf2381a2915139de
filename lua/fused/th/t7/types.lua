-- What Torch7's .t7 format (torch7's File.lua and generic/{Tensor,Storage}.c) calls things:
-- the type tag before each value, and the element types of its tensor and storage classes
-- with the fused dtype each is read as.
local dt = require 'fused.dtype'

local M = {
  NIL = 0, NUMBER = 1, STRING = 2, TABLE = 3, TORCH = 4, BOOLEAN = 5,
  -- Lua functions, as bytecode: 6 (no object index), 7 (older upvalues) and 8.
  FUNCTION = 6, LEGACY_RECUR_FUNCTION = 7, RECUR_FUNCTION = 8,
}

-- Torch7's element types: bytes per element in a binary file, the C type, whether they are
-- integers, and how its ascii files print them (Byte and Char: as raw bytes, both formats).
M.elements = {
  Byte = { size = 1, ctype = 'uint8_t', integer = true, raw = true },
  Char = { size = 1, ctype = 'int8_t', integer = true, raw = true },
  Short = { size = 2, ctype = 'int16_t', integer = true },
  Int = { size = 4, ctype = 'int32_t', integer = true },
  Long = { size = 8, ctype = 'int64_t', integer = true },
  Float = { size = 4, ctype = 'float', format = '%.9g' },
  Double = { size = 8, ctype = 'double', format = '%.17g' },
  Half = { size = 2, ctype = 'uint16_t', format = '%.9g' },
}

-- The fused dtype (its number) each element type is read as: the dtype whose Torch7 class it
-- is (fused.h's FUSED_DTYPES), else int64 for the integer types, which holds all their values.
for name, element in pairs(M.elements) do
  element.name = name
  for id, class in pairs(dt.torch7_classes) do
    if class == name .. 'Tensor' then element.dtype = id end
  end
  if not element.dtype and element.integer then element.dtype, element.widened = dt.dtypes.int64, true end
  assert(element.dtype, 'fused.th.t7: no dtype holds Torch7\'s ' .. name)
end

-- The element type a fused dtype is written as (its Torch7 class), or nil.
function M.element_of(dtype)
  local name = dt.torch7_classes[dtype]:match('^(%a+)Tensor$')
  if M.elements[name] and M.elements[name].dtype == dtype then return name end
  if dtype == dt.dtypes.bool then return 'Byte' end -- Torch7's masks were ByteTensors of 0 and 1
end

-- 'torch.FloatTensor' -> 'Float', 'Tensor'; 'torch.CudaLongStorage' -> 'Long', 'Storage'
-- (cutorch's classes are read onto the CPU); nil for other classes.
function M.parse_class(name)
  local body, kind = name:match('^torch%.(%a*)(Tensor)$')
  if not body then body, kind = name:match('^torch%.(%a*)(Storage)$') end
  if not body then return nil end
  local element = body:match('^Cuda(%a*)$')
  if element == '' then element = 'Float' end -- torch.CudaTensor
  element = element or body
  if M.elements[element] then return element, kind end
end

-- Text read from a file, for messages: printable ASCII, shortened.
function M.show(text)
  text = text:gsub('[^\32-\126]', '?')
  return #text > 40 and text:sub(1, 40) .. '...' or text
end

return M
