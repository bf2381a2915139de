-- Names and numbers of dtypes and devices, shared by every Lua module: C's lists (fused.h's
-- FUSED_DTYPES and FUSED_DEVICES), read through fused_dtype_info_of and fused_device_name, so
-- that a dtype or device added there is one here.
local ffi = require 'ffi'
local C = require('fused.lib').C
local options = require 'fused.options'

local M = {
  -- By name: the dtype's number.
  dtypes = {},
  -- By number: the name, the pointer ctype, bytes per element, whether the arithmetic takes
  -- it, its .npy descr ('<f4'), its safetensors code ('F32') and its Torch7 class
  -- ('FloatTensor').
  dtype_names = {}, ctypes = {}, sizes = {}, is_floating = {}, npy_descrs = {},
  safetensors_codes = {}, torch7_classes = {}, through = {},
  -- By number: whether it is a floating dtype that computes (float32, float64).
  computes_floating = {},
  -- By file code: the dtype's number.
  npy_dtypes = {}, safetensors_dtypes = {},
  -- By name: the device's number; by number, its name.
  devices = {}, device_names = {},
}

for id = 0, C.FUSED_NUM_DTYPES - 1 do
  local info = C.fused_dtype_info_of(id)
  local name, code = ffi.string(info.name), ffi.string(info.safetensors)
  local npy = info.npy_descr ~= nil and ffi.string(info.npy_descr) or nil -- bfloat16 has none
  M.dtypes[name], M.dtype_names[id] = id, name
  M.ctypes[id], M.sizes[id] = ffi.typeof(ffi.string(info.pointer_type)), info.size
  M.is_floating[id] = info.is_floating ~= 0
  M.npy_descrs[id] = npy
  if npy then M.npy_dtypes[npy] = id end
  M.safetensors_codes[id], M.safetensors_dtypes[code] = code, id
  M.torch7_classes[id] = ffi.string(info.torch7_class)
  -- A dtype stored as its bits (a C struct: bfloat16, float16) is read and written by Lua
  -- through float32, which holds each of its values exactly.
  if tostring(M.ctypes[id]):find('struct') then M.through[id] = M.dtypes.float32 end
  M.computes_floating[id] = M.is_floating[id] and not M.through[id]
end

for id = 0, C.FUSED_NUM_DEVICES - 1 do
  local name = ffi.string(C.fused_device_name(id))
  M.devices[name], M.device_names[id] = id, name
end

-- "float32 or float64": the floating dtypes that compute (all but those stored as bits), as C's
-- fused_floating_names says them.
function M.floating_names()
  local names = {}
  for id = 0, C.FUSED_NUM_DTYPES - 1 do
    if M.computes_floating[id] then names[#names + 1] = M.dtype_names[id] end
  end
  return table.concat(names, ', ', 1, #names - 1) .. ' or ' .. names[#names]
end

-- "'a', 'b' or 'c'" for messages: a by-number table's entries (from 0) in number order, each
-- between `quote`s, then any further items as given.
function M.one_of(by_id, quote, ...)
  local items = {}
  for id = 0, table.maxn(by_id) do -- a dtype without an entry (bfloat16's npy descr) is left out
    if by_id[id] then items[#items + 1] = quote .. by_id[id] .. quote end
  end
  for _, item in ipairs({ ... }) do items[#items + 1] = item end
  return table.concat(items, ', ', 1, #items - 1) .. ' or ' .. items[#items]
end

-- PyTorch's type promotion (c10's promoteTypes and result_type). A category: bool 0, integer
-- 1, floating 2.
local BOOL, INT64, FLOAT32 = M.dtypes.bool, M.dtypes.int64, M.dtypes.float32
local function category(dtype)
  return dtype == BOOL and 0 or M.is_floating[dtype] and 2 or 1
end

-- The dtype that holds both a and b (ids; nil for none): the higher category, within one the
-- wider; two 16-bit dtypes (bfloat16, float16) meet in float32.
local function promote_types(a, b)
  if a == nil or a == b then return b end
  if b == nil then return a end
  local ca, cb = category(a), category(b)
  if ca ~= cb then return ca > cb and a or b end
  if M.sizes[a] ~= M.sizes[b] then return M.sizes[a] > M.sizes[b] and a or b end
  return FLOAT32
end
M.promote_types = promote_types

-- higher (the dimensioned operands' dtype) met with lower (the 0-d tensors' and numbers'):
-- c10's combine_categories. A lower of the same category or below does not widen higher.
local function combine(higher, lower)
  if higher == nil then return lower end
  if M.is_floating[higher] then return higher end
  if lower ~= nil and (higher == BOOL or M.is_floating[lower]) then return promote_types(higher, lower) end
  return higher
end

-- PyTorch's result_type of operands (tensors or Lua numbers, in a list of n): dimensioned
-- tensors decide within their category; a 0-d tensor's or a number's dtype counts only where
-- its category is higher (float32 with a 0-d float64 is float32, int64 with a 0-d float64 is
-- float64); a number is int64 when an integer, else float32 (PyTorch's default dtype).
function M.result_type(operands, n)
  local dim, zero, number
  for i = 1, n do
    local x = operands[i]
    if type(x) == 'number' then
      number = promote_types(number, (x == math.floor(x) and x - x == 0) and INT64 or FLOAT32)
    elseif x.ndim > 0 then
      dim = promote_types(dim, x.scalar_type)
    else
      zero = promote_types(zero, x.scalar_type)
    end
  end
  return combine(dim, combine(zero, number))
end

-- Tensors a and b in their result_type, converted where they differ (on one device: C names a
-- device that differs).
function M.promoted(a, b)
  if a.scalar_type == b.scalar_type or a.device_type ~= b.device_type then return a, b end
  local dtype = M.dtype_names[M.result_type({ a, b }, 2)]
  return a:to(dtype), b:to(dtype)
end

-- Whether a result of dtype from may be written into a tensor of dtype to, as PyTorch's
-- canCast: never floating into an integer or bool, nor an integer into bool.
function M.can_cast(from, to)
  return category(from) <= category(to)
end

local function show(x)
  return type(x) == 'string' and "'" .. x .. "'" or (type(x) == 'number' or type(x) == 'boolean')
    and tostring(x) or type(x)
end

-- opts: {dtype=, device=} (nil for the defaults, float32 on the cpu), checked; returns their
-- numbers. Errors are blamed `level` frames up, as error's level seen from parse (default:
-- the caller of the function that calls parse).
function M.parse(opts, fn, level)
  level = level or 3
  opts = options.check(opts, fn, { 'device', 'dtype' })
  local dtype = M.dtypes[opts.dtype == nil and 'float32' or opts.dtype]
  if not dtype then
    error(string.format("%s: option 'dtype' expected %s, got %s", fn, M.one_of(M.dtype_names, "'"),
                        show(opts.dtype)), level)
  end
  local device = M.devices[opts.device == nil and 'cpu' or opts.device]
  if not device then
    error(string.format("%s: option 'device' expected %s, got %s", fn,
                        M.one_of(M.device_names, "'"), show(opts.device)),
          level)
  end
  return dtype, device
end

return M
