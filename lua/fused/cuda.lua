-- fused.cuda: loads libfused_cuda when it was built and a device answers; says why not when
-- it cannot. Device tensors themselves are made by the usual constructors ({device='cuda'})
-- and t:cuda(); this module holds what is CUDA's own: the allocator's figures, synchronising.
local ffi = require 'ffi'
local lib = require 'fused.lib'

ffi.cdef(require 'fused.cuda_cdef') -- declarations only: harmless without the library

local M = {}
local reason

local path = not os.getenv('FUSED_NO_CUDA') and lib.find('libfused_cuda', 'FUSED_CUDA_LIB')
if not path then
  reason = os.getenv('FUSED_NO_CUDA') and 'disabled by FUSED_NO_CUDA'
    or 'libfused_cuda.so was not built (no nvcc when `make` ran)'
else
  local ok, cuda = pcall(ffi.load, path)
  if not ok then
    reason = 'libfused_cuda.so did not load: ' .. tostring(cuda)
  else
    M.C = cuda -- kept for the program's life: device tensors' finalizers point into it
    if cuda.fused_cuda_init() ~= 0 then reason = ffi.string(lib.C.fused_last_error()) end
  end
end
if reason then lib.C.fused_set_device_unavailable(1, reason) end

function M.is_available() return reason == nil end

-- Why no device is usable, or which device is in use.
function M.why()
  return reason or 'CUDA device 0 is available: ' .. ffi.string(M.C.fused_cuda_device_name())
end

-- The C library, or an error naming fn and the reason there is no device.
local function device(fn)
  if reason then error(string.format('cuda.%s: CUDA is not available: %s', fn, reason), 3) end
  return M.C
end

local function check(rc)
  if rc ~= 0 then error(ffi.string(lib.C.fused_last_error()), 3) end
end

-- Waits for every queued op (ops run asynchronously; reading a value on the host waits too).
function M.synchronize() check(device('synchronize').fused_cuda_synchronize()) end

local stats = ffi.new('fused_cuda_memory')
-- The caching allocator's figures in bytes: {in_use=, reserved=, peak=, cuda_mallocs=}.
function M.memory_stats()
  check(device('memory_stats').fused_cuda_memory_stats(stats))
  return { in_use = tonumber(stats.in_use), reserved = tonumber(stats.reserved),
           peak = tonumber(stats.peak), cuda_mallocs = tonumber(stats.cuda_mallocs) }
end

-- Gives the cached blocks back to the device (collect garbage first to cache more of them).
function M.empty_cache() check(device('empty_cache').fused_cuda_empty_cache()) end

-- float32 matrix products on TF32 tensor cores (true) or in plain float32 (false, the default).
function M.set_tf32(enabled)
  if type(enabled) ~= 'boolean' then
    error("cuda.set_tf32: argument 'enabled' expected a boolean, got " .. type(enabled), 2)
  end
  check(device('set_tf32').fused_cuda_set_tf32(enabled and 1 or 0))
end

return M
