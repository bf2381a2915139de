-- fused.config(): what this process computes with, for banners and benchmark headers. A table
-- (version, cpu, cpu_capability, vector_bits, cpu_cache: the last-level cache's bytes as the
-- kernels take them (fused_set_cpu_cache_bytes), threads, blas, blas_core, blas_threading,
-- gemm: which library runs the products ('openblas', 'onednn', 'packed' or 'auto', fused.set_gemm),
-- gemm_providers: those this build has, gemm_wisdom: the file of auto's measurements and its
-- state, gemm_choices: the shape classes measured so far and their provider, gemm_calls: the
-- products each provider has run since load ({openblas = n, onednn = n, packed = n}), bf16:
-- how compute = 'bfloat16' multiplies on the CPU, 'avx512_bf16' or 'float32' (its fallback),
-- cuda: whether a GPU answers, cuda_emulated: whether cuda tensors run on the CUDA emulator,
-- cuda_bf16: how compute = 'bfloat16' multiplies on cuda tensors, 'cublasGemmEx' (bfloat16
-- operands, float32 compute; nil without a cuda device)) that prints as one line.
local ffi = require 'ffi'
local lib = require 'fused.lib'

local C = lib.C
local threading = { [0] = 'no threads', [1] = 'pthreads', [2] = 'OpenMP' }

local function cpu_model()
  local f = io.open('/proc/cpuinfo', 'r')
  local model = f and f:read('*a'):match('model name%s*:%s*([^\n]+)')
  if f then f:close() end
  return model or 'unknown cpu'
end

local line = {
  __tostring = function(c)
    return string.format('fused %s | %s | %s kernels (%d-bit vectors) | %d MiB cache | '
      .. '%d threads | OpenBLAS %s kernels, %s | GEMM: %s (%s) | bf16 products: %s | %s',
      c.version, c.cpu, c.cpu_capability, c.vector_bits, c.cpu_cache / 2 ^ 20, c.threads,
      c.blas_core, c.blas_threading, c.gemm, c.gemm_providers, c.bf16,
      (c.cuda and 'CUDA' or c.cuda_emulated and 'cuda (emulated)' or 'no CUDA')
      .. (c.cuda_bf16 and ', bf16 products: ' .. c.cuda_bf16 or ''))
  end,
}

local function gemm_choices()
  local n = tonumber(C.fused_gemm_choices(nil, 0))
  local buf = ffi.new('char[?]', n + 1)
  C.fused_gemm_choices(buf, n + 1)
  return ffi.string(buf)
end

return function()
  local cuda = require 'fused.cuda'
  return setmetatable({
    version = 'scm-1',
    cpu = cpu_model(),
    cpu_capability = ffi.string(C.fused_cpu_capability()),
    vector_bits = C.fused_cpu_vector_bits(),
    cpu_cache = tonumber(C.fused_cpu_cache_bytes()),
    threads = C.fused_get_num_threads(),
    blas = ffi.string(C.fused_blas_config()),
    blas_core = ffi.string(C.fused_blas_core()),
    blas_threading = threading[C.fused_blas_threading()] or 'unknown',
    gemm = ffi.string(C.fused_gemm()),
    gemm_providers = ffi.string(C.fused_gemm_providers()),
    gemm_wisdom = ffi.string(C.fused_gemm_wisdom()),
    gemm_choices = gemm_choices(),
    gemm_calls = { openblas = tonumber(C.fused_gemm_calls('openblas')),
                   onednn = tonumber(C.fused_gemm_calls('onednn')),
                   packed = tonumber(C.fused_gemm_calls('packed')) },
    bf16 = ffi.string(C.fused_cpu_bf16_path()),
    cuda = cuda.is_available(),
    cuda_emulated = cuda.is_emulated(),
    cuda_bf16 = (cuda.is_available() or cuda.is_emulated()) and 'cublasGemmEx' or nil,
  }, line)
end
