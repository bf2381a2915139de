-- Loads libfused and declares its C API: the one place that calls ffi.load for it.
local ffi = require 'ffi'

ffi.cdef(require 'fused.cdef')

local lib = {}

-- This file's folder: lua/fused/ in a checkout, $LUADIR/fused/ once installed.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'

-- A C library named `name` ('libfused'): $FUSED_LIB for libfused, then the checkout's build/,
-- then package.cpath (where luarocks and `make install` put it).
function lib.find(name, env)
  local path = env and os.getenv(env)
  if path and path ~= '' then return path end
  local built = here .. '../../build/' .. name .. '.so'
  local f = io.open(built, 'rb')
  if f then f:close(); return built end
  return package.searchpath(name, package.cpath)
end

lib.path = lib.find('libfused', 'FUSED_LIB')
if not lib.path then
  error("fused: libfused.so not found: run `make` in the checkout, or `luarocks make`", 2)
end
-- Kept in this table for the life of the program: ffi.gc finalizers point into it.
lib.C = ffi.load(lib.path)

-- FUSED_CPU_CAPABILITY=avx512|avx2|default runs that build of the CPU kernels instead of the
-- best this CPU runs (c/cpu/capability.c); an unknown one, or one this CPU cannot run, is an
-- error here rather than a silent fallback, so that a CI run asking for a path gets it.
local capability = os.getenv('FUSED_CPU_CAPABILITY')
if capability and capability ~= '' and lib.C.fused_set_cpu_capability(capability) ~= 0 then
  error('fused: FUSED_CPU_CAPABILITY: ' .. ffi.string(lib.C.fused_last_error()), 2)
end

-- FUSED_GEMM=openblas|onednn|auto: which library runs the CPU's float32 products
-- (c/cpu/gemm_choice.c); an unknown name is an error here, as above.
local gemm = os.getenv('FUSED_GEMM')
if gemm and gemm ~= '' and lib.C.fused_set_gemm(gemm) ~= 0 then
  error('fused: FUSED_GEMM: ' .. ffi.string(lib.C.fused_last_error()), 2)
end

-- Raises the library's last error, blamed on the caller of the public function (level 3).
function lib.check(rc)
  if rc ~= 0 then error(ffi.string(lib.C.fused_last_error()), 3) end
end

return lib
