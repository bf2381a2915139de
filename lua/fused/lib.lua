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

-- C's errors speak of the C API (c/fused.h): its functions without the fused_ prefix, its
-- parameters, dims and positions in C arrays counted from 0. lib.last_error() gives the message
-- as Lua names the same things: a few C functions serve a Lua function of another name, a few
-- parameters are the Lua arguments of other names, and Lua counts from 1.
local lua_names = {
  sum_dim = 'sum', prod_dim = 'prod', max_dim = 'max', min_dim = 'min',
  logsumexp_dim = 'logsumexp', count_nonzero = 'nonzero', masked_scatter = 'masked_scatter_',
  index_put = 'index_put_', index_add = 'index_add_', tensor_init = 'tensor_new',
  csr_check = 'sparse.csr', csr_from_coo = 'sparse.from_coo', csr_transpose = 'sparse.t',
  spmm = 'sparse.mm',
}
local ARGS = { ['in'] = 'input', inputs = 'tensors', cond = 'condition' } -- in every function
local SELF = { t = 'self', src = 'source' }
local BACKWARD = { d_in = 'out', grad_out = 'grad_output', out = 'output' }
local lua_args = {
  masked_scatter = SELF, index_put = SELF, index_add = SELF, sum_squares = { t = 'input' },
  softmax_backward = BACKWARD, log_softmax_backward = BACKWARD,
}
local function plus_one(n) return tostring(tonumber(n) + 1) end

function lib.last_error()
  local message = ffi.string(lib.C.fused_last_error())
  local fn = message:match('^([%w_]+):')
  if not fn then return message end
  local args = lua_args[fn] or {}
  local function arg(name) return args[name] or ARGS[name] or name end
  message = (lua_names[fn] or fn) .. message:sub(#fn + 1)
  message = message:gsub("argument 'dim' expected 0 to (%-?%d+), got (%-?%d+)", function(last, got)
    return "argument 'dim' expected 1 to " .. plus_one(last) .. ', got ' .. plus_one(got)
  end)
  message = message:gsub('(dim )(%d+)', function(word, n) return word .. plus_one(n) end)
  message = message:gsub("'([%w_]+)%[(%d+)%]'", function(list, n) return "'" .. arg(list) .. '[' .. plus_one(n) .. "]'" end)
  return (message:gsub("'([%w_]+)'", function(name) return "'" .. arg(name) .. "'" end))
end

-- FUSED_GEMM=openblas|onednn|packed|auto: which library runs the CPU's products
-- (c/cpu/gemm_choice.c); an unknown name is an error here, as above.
local gemm = os.getenv('FUSED_GEMM')
if gemm and gemm ~= '' and lib.C.fused_set_gemm(gemm) ~= 0 then
  error('fused: FUSED_GEMM: ' .. ffi.string(lib.C.fused_last_error()), 2)
end

-- Raises the library's last error, blamed on the caller of the public function (level 3).
function lib.check(rc)
  if rc ~= 0 then error(lib.last_error(), 3) end
end

return lib
