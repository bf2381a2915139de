-- Names and numbers of dtypes and devices, shared by every Lua module.
local ffi = require 'ffi'

local M = {
  dtypes = { float32 = 0, float64 = 1, int64 = 2, bool = 3 },
  dtype_names = { [0] = 'float32', [1] = 'float64', [2] = 'int64', [3] = 'bool' },
  ctypes = { [0] = ffi.typeof('float*'), [1] = ffi.typeof('double*'),
             [2] = ffi.typeof('int64_t*'), [3] = ffi.typeof('bool*') },
  sizes = { [0] = 4, [1] = 8, [2] = 8, [3] = 1 },
  devices = { cpu = 0, cuda = 1 },
  device_names = { [0] = 'cpu', [1] = 'cuda' },
}

-- opts.dtype / opts.device as names, checked; defaults float32 on the cpu.
function M.parse(opts, fn)
  opts = opts or {}
  if type(opts) ~= 'table' then
    error(string.format("%s: argument 'opts' expected a table like {dtype=, device=}, got %s",
                        fn, type(opts)), 3)
  end
  local dtype = M.dtypes[opts.dtype or 'float32']
  if not dtype then
    error(string.format("%s: option 'dtype' expected 'float32', 'float64', 'int64' or 'bool', got %s", fn,
                        tostring(opts.dtype)), 3)
  end
  local device = M.devices[opts.device or 'cpu']
  if not device then
    error(string.format("%s: option 'device' expected 'cpu' or 'cuda', got %s", fn,
                        tostring(opts.device)), 3)
  end
  return dtype, device
end

return M
