-- Names and numbers of dtypes and devices, shared by every Lua module. The dtypes are C's
-- table (c/core/dtypes.h), read through fused_dtype_info_of: a dtype added there is one here.
local ffi = require 'ffi'
local C = require('fused.lib').C
local options = require 'fused.options'

-- The FFI pointer type of each dtype's elements, by name: what C's table cannot tell Lua.
local pointer_types = { float32 = 'float*', float64 = 'double*', int64 = 'int64_t*',
                        bool = 'bool*' }

local M = {
  -- By name: the dtype's number.
  dtypes = {},
  -- By number: the name, the pointer ctype, bytes per element, whether the arithmetic takes
  -- it, its .npy descr ('<f4') and its safetensors code ('F32').
  dtype_names = {}, ctypes = {}, sizes = {}, is_floating = {}, npy_descrs = {},
  safetensors_codes = {},
  -- By file code: the dtype's number.
  npy_dtypes = {}, safetensors_dtypes = {},
  devices = { cpu = 0, cuda = 1 },
  device_names = { [0] = 'cpu', [1] = 'cuda' },
}

for id = 0, C.FUSED_NUM_DTYPES - 1 do
  local info = C.fused_dtype_info_of(id)
  local name, npy, code = ffi.string(info.name), ffi.string(info.npy_descr),
    ffi.string(info.safetensors)
  if not pointer_types[name] then
    error(string.format("fused.dtype: libfused's dtype %d, '%s', has no element type here: add it "
                        .. 'to pointer_types in lua/fused/dtype.lua', id, name), 0)
  end
  M.dtypes[name], M.dtype_names[id] = id, name
  M.ctypes[id], M.sizes[id] = ffi.typeof(pointer_types[name]), info.size
  M.is_floating[id] = info.is_floating ~= 0
  M.npy_descrs[id], M.npy_dtypes[npy] = npy, id
  M.safetensors_codes[id], M.safetensors_dtypes[code] = code, id
end

-- "'a', 'b' or 'c'" for messages: a by-number table's entries in dtype order, each between
-- `quote`s, then any further items as given.
function M.one_of(by_id, quote, ...)
  local items = {}
  for id = 0, C.FUSED_NUM_DTYPES - 1 do items[#items + 1] = quote .. by_id[id] .. quote end
  for _, item in ipairs({ ... }) do items[#items + 1] = item end
  return table.concat(items, ', ', 1, #items - 1) .. ' or ' .. items[#items]
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
    error(string.format("%s: option 'device' expected 'cpu' or 'cuda', got %s", fn,
                        show(opts.device)), level)
  end
  return dtype, device
end

return M
