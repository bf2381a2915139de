-- local fused = require 'fused': tensors, ops, nn modules and optimizers over libfused.
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local ops = require 'fused.ops'
require 'fused.print'
local npy = require 'fused.npy'

tensor.install()

local fused = {
  Tensor = tensor.Tensor,
  C = lib.C,
  is_tensor = tensor.is_tensor,
  empty = tensor.empty, zeros = tensor.zeros, ones = tensor.ones, full = tensor.full,
  rand = tensor.rand, randn = tensor.randn, tensor = tensor.tensor,
  manual_seed = tensor.manual_seed,
  load_npy = npy.load_npy, save_npy = npy.save_npy,
}
for name, f in pairs(ops) do fused[name] = f end

-- Threads for the CPU kernels and OpenBLAS (0: all cores).
function fused.set_num_threads(n) lib.check(lib.C.fused_set_num_threads(n)) end
function fused.get_num_threads() return lib.C.fused_get_num_threads() end

return fused
