-- Names and numbers of dtypes and devices, shared by every Lua module.
local ffi = require 'ffi'
local options = require 'fused.options'

local M = {
  dtypes = { float32 = 0, float64 = 1, int64 = 2, bool = 3 },
  dtype_names = { [0] = 'float32', [1] = 'float64', [2] = 'int64', [3] = 'bool' },
  ctypes = { [0] = ffi.typeof('float*'), [1] = ffi.typeof('double*'),
             [2] = ffi.typeof('int64_t*'), [3] = ffi.typeof('bool*') },
  sizes = { [0] = 4, [1] = 8, [2] = 8, [3] = 1 },
  devices = { cpu = 0, cuda = 1 },
  device_names = { [0] = 'cpu', [1] = 'cuda' },
}

local function show(x)
  return type(x) == 'string' and "'" .. x .. "'" or (type(x) == 'number' or type(x) == 'boolean')
    and tostring(x) or type(x)
end

-- opts: {dtype=, device=} (nil for the defaults, float32 on the cpu), checked; returns their
-- numbers. Errors are blamed `level` frames up, as error's level seen from parse (default:
-- the caller of the function that calls parse).
function M.parse(opts, fn, level)
  level = level or 3
  opts = options.check(opts, fn, { 'device', 'dtype' }, level + 1)
  local dtype = M.dtypes[opts.dtype == nil and 'float32' or opts.dtype]
  if not dtype then
    error(string.format("%s: option 'dtype' expected 'float32', 'float64', 'int64' or 'bool', got %s",
                        fn, show(opts.dtype)), level)
  end
  local device = M.devices[opts.device == nil and 'cpu' or opts.device]
  if not device then
    error(string.format("%s: option 'device' expected 'cpu' or 'cuda', got %s", fn,
                        show(opts.device)), level)
  end
  return dtype, device
end

return M
