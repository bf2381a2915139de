-- local fused = require 'fused': tensors, ops, nn modules and optimizers over libfused.
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local random = require 'fused.ops.random'
local ops = require 'fused.ops'
local npy = require 'fused.npy'
require 'fused.print'
require 'fused.shape'
require 'fused.indexing'
local factory = require 'fused.factory'
local torch7 = require 'fused.torch7'

tensor.install()

local fused = {
  version = 'scm-1', -- the rockspec's
  Tensor = tensor.Tensor,
  C = lib.C,
  is_tensor = argcheck.is_tensor,
  empty = factory.empty, zeros = factory.zeros, ones = factory.ones, full = factory.full,
  rand = factory.rand, randn = factory.randn, tensor = factory.tensor,
  arange = factory.arange, linspace = factory.linspace, eye = factory.eye, Size = tensor.Size,
  manual_seed = random.manual_seed,
  load_npy = npy.load_npy, save_npy = npy.save_npy,
  cuda = require 'fused.cuda',
  nn = require 'fused.nn',
  optim = require 'fused.optim',
  -- Counters for the specs: storages made since the library loaded.
  debug = { allocations = tensor.allocations },
}
for name, f in pairs(ops) do fused[name] = f end
for name, f in pairs(torch7) do fused[name] = f end
-- The dtype names (fused.float32, ..., fused.bool), so that a typo is a nil caught below.
for name in pairs(require('fused.dtype').dtypes) do fused[name] = name end

-- Threads for the CPU kernels and OpenBLAS (0: all cores).
function fused.set_num_threads(n)
  -- Beyond int32_t the FFI would wrap it (2^40 became 0: all cores).
  if type(n) ~= 'number' or n ~= math.floor(n) or n < 0 or n > 2 ^ 31 - 1 then
    error("set_num_threads: argument 'n' expected an integer from 0 to 1024 (0: all cores), got "
          .. tostring(n), 2)
  end
  lib.check(lib.C.fused_set_num_threads(n))
end
function fused.get_num_threads() return lib.C.fused_get_num_threads() end

-- The CPU kernels' vector path: 'avx512', 'avx2' or 'default' (FUSED_CPU_CAPABILITY at load).
function fused.set_cpu_capability(name)
  if type(name) ~= 'string' then
    error("set_cpu_capability: argument 'name' expected a string, got " .. type(name), 2)
  end
  lib.check(lib.C.fused_set_cpu_capability(name))
end

-- Which library runs the CPU's matrix products: 'openblas', 'onednn', 'packed' (the sequence
-- engine's own kernel for its per-step products) or 'auto' (each shape class on the fastest,
-- measured once per machine; FUSED_GEMM at load).
function fused.set_gemm(name)
  if type(name) ~= 'string' then
    error("set_gemm: argument 'name' expected a string, got " .. type(name), 2)
  end
  lib.check(lib.C.fused_set_gemm(name))
end
for _, name in ipairs({ 'set_num_threads', 'get_num_threads', 'set_cpu_capability', 'set_gemm' }) do
  fused[name] = argcheck.no_extra(name, fused[name])
end
fused.config = require 'fused.config'

-- Loaded on first use: fused.functional, fused.gradcheck(...), fused.sparse, fused.distributed,
-- fused.ext, fused.cell, fused.grad(f),
-- fused.save / fused.load.
local lazy = { functional = 'fused.functional', gradcheck = 'fused.gradcheck', sparse = 'fused.sparse',
               distributed = 'fused.distributed', ext = 'fused.ext', cell = 'fused.cell',
               grad = 'fused.autograd.grad' }
function fused.save(...) return require('fused.safetensors').save(...) end
function fused.load(...) return require('fused.safetensors').load(...) end

-- Any other name is a mistake ({dtype = fused.flaot64} would otherwise pass nil: the default).
return setmetatable(fused, {
  __index = function(t, k)
    if not lazy[k] then error(string.format("fused has no '%s'", tostring(k)), 2) end
    local mod = require(lazy[k])
    rawset(t, k, mod)
    return mod
  end,
})
