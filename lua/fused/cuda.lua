-- fused.cuda: loads libfused_cuda when it was built and a device answers.
local ffi = require 'ffi'
local lib = require 'fused.lib'

local M = {}
local reason

local path = not os.getenv('FUSED_NO_CUDA') and lib.find('libfused_cuda', 'FUSED_CUDA_LIB')
if not path then
  reason = os.getenv('FUSED_NO_CUDA') and 'disabled by FUSED_NO_CUDA'
    or 'libfused_cuda.so was not built (no nvcc when `make` ran)'
else
  ffi.cdef(require 'fused.cuda_cdef')
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
function M.why() return reason or 'a CUDA device is available' end

return M
