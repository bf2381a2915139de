-- Every shared library fused loads with ffi.load stays mapped once its handle is collected
-- (-Wl,-z,nodelete, ../shared/TOOLCHAIN.md): busted loads fused again for each spec file, so
-- each file's handles are collected while the libraries are in use: libfused's device table
-- points into libfused_cuda, tensors' finalizers free device memory through it, and libgomp's
-- threads run code of the OpenMP ones. A library that dlclose unmaps there crashes the run.
local ffi = require 'ffi'
local lib = require 'fused.lib'

-- Whether this process maps the file named `file` (a path's last part).
local function mapped(file)
  local maps = assert(io.open('/proc/self/maps', 'rb'))
  local text = maps:read('*a')
  maps:close()
  for path in text:gmatch('%s(/[^\n]+)\n') do
    if path:match('[^/]*$') == file then return true end
  end
  return false
end

-- The libraries as fused finds them (FUSED_LIB and the others name the sanitizer's builds);
-- the CUDA ones only where the run may load them (make test-valgrind sets FUSED_NO_CUDA).
local cuda = not os.getenv('FUSED_NO_CUDA')
local LIBRARIES = {
  { 'libfused', 'FUSED_LIB', true },
  { 'libfused_cuda', 'FUSED_CUDA_LIB', cuda },
  { 'libfused_cuda_emu', 'FUSED_CUDA_EMU_LIB', true },
  { 'libfused_mpi', 'FUSED_MPI_LIB', true },
  { 'libfused_nccl', 'FUSED_NCCL_LIB', cuda },
  { 'libfused_nccl_emu', 'FUSED_NCCL_EMU_LIB', true },
}

describe('the libraries fused loads', function()
  for _, l in ipairs(LIBRARIES) do
    local name, env, wanted = l[1], l[2], l[3]
    local path = wanted and lib.find(name, env)
    it(name .. ' stays mapped once its handle is collected', function()
      -- loaded alone, so that no other library's handle holds it (libfused_nccl needs libfused_cuda)
      local ok, handle = false, nil
      if path then ok, handle = pcall(ffi.load, path) end
      if not ok then
        pending(name .. ' is not built here or does not load (' .. tostring(path) .. ')')
        return
      end
      handle = nil -- its last reference
      collectgarbage()
      collectgarbage()
      assert(mapped(path:match('[^/]*$')), name .. ' was unmapped by dlclose: link it with -z nodelete')
    end)
  end
end)
