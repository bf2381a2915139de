-- fused.cuda: loads libfused_cuda when it was built and a device answers; says why not when
-- it cannot. Device tensors themselves are made by the usual constructors ({device='cuda'})
-- and t:cuda(); this module holds what is CUDA's own: the allocator's figures, synchronising.
local ffi = require 'ffi'
local lib = require 'fused.lib'

ffi.cdef(require 'fused.cuda_cdef') -- declarations only: harmless without the library

local M = {}
local reason, emulated

-- libfused_cuda (nvcc's build, or any library FUSED_CUDA_LIB names) loaded and initialised:
-- the library, or nil and why not.
local function open(path)
  local ok, C = pcall(ffi.load, path)
  if not ok then return nil, path:match('[^/]*$') .. ' did not load: ' .. tostring(C) end
  if C.fused_cuda_init() ~= 0 then return nil, ffi.string(lib.C.fused_last_error()) end
  M.path = path -- what fused.ext links .cu sources against
  return C
end

-- Whether a loaded library is the CUDA emulator's (only it has fused_cuda_emu_seed).
local function is_emulator(C) return (pcall(function() return C.fused_cuda_emu_seed end)) end

local disabled = os.getenv('FUSED_NO_CUDA')
local path = not disabled and lib.find('libfused_cuda', 'FUSED_CUDA_LIB')
if disabled then
  reason = 'disabled by FUSED_NO_CUDA'
elseif not path then
  reason = 'libfused_cuda.so was not built (no nvcc when `make` ran)'
else
  M.C, reason = open(path) -- kept for the program's life: device tensors' finalizers point into it
end
-- FUSED_CUDA_EMULATOR=1 (make test sets it): where no GPU answers, the same CUDA sources run on
-- the emulator (docs/cuda.md), a test device that nothing picks by itself.
local want_emulator = os.getenv('FUSED_CUDA_EMULATOR')
if reason and not disabled and want_emulator and want_emulator ~= '' and want_emulator ~= '0' then
  local emu_path = lib.find('libfused_cuda_emu', 'FUSED_CUDA_EMU_LIB')
  local C, why
  if emu_path then C, why = open(emu_path) end
  if C then
    M.C, emulated = C, 'no GPU answered (' .. reason .. ')'
    reason = nil
  else
    reason = reason .. '; the CUDA emulator: ' .. (why or 'libfused_cuda_emu.so was not built')
  end
elseif M.C and is_emulator(M.C) then
  emulated = 'FUSED_CUDA_LIB names it'
end
if reason then lib.C.fused_set_device_unavailable(1, reason) end

-- Whether a GPU answers. The emulator is not one: code that picks a device by itself (as
-- examples/train.lua's --device auto does) asks this and stays on the CPU there.
function M.is_available() return reason == nil and not emulated end

-- Whether cuda tensors run on the CUDA emulator (FUSED_CUDA_EMULATOR=1 and no GPU).
function M.is_emulated() return emulated ~= nil end

-- Why no device is usable, or which device is in use.
function M.why()
  if reason then return reason end
  if emulated then
    return 'cuda (emulated): the CUDA emulator runs the CUDA kernels on the CPU, as '
      .. 'FUSED_CUDA_EMULATOR asked: ' .. emulated
  end
  return 'CUDA device 0 is available: ' .. ffi.string(M.C.fused_cuda_device_name())
end

-- The emulator's thread order: seed 0 runs a block's threads in order, others shuffle them.
function M.emulator_seed(seed)
  if not emulated then error('cuda.emulator_seed: the CUDA emulator is not loaded: ' .. M.why(), 2) end
  if type(seed) ~= 'number' or seed < 0 or seed % 1 ~= 0 then
    error("cuda.emulator_seed: argument 'seed' expected a whole number >= 0, got " .. tostring(seed), 2)
  end
  M.C.fused_cuda_emu_seed(seed)
end

-- The C library, or an error naming fn and the reason there is no device.
local function device(fn)
  if reason then error(string.format('cuda.%s: CUDA is not available: %s', fn, reason), 3) end
  return M.C
end

local function check(rc)
  if rc ~= 0 then error(lib.last_error(), 3) end
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
