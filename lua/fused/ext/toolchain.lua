-- The compilers and the fused headers an extension builds with (fused.ext.load): their
-- commands, versions and flags, found once per process.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local hash = require 'fused.ext.hash'

local M = {}

-- What command prints (stderr dropped).
local function output(command)
  local p = io.popen(command .. ' 2>/dev/null')
  local out = p:read('*a') or ''
  p:close()
  return out
end

local versions = {}
-- `cc --version`'s first line (nvcc: its last, which names the release); nil when it does
-- not run.
function M.version(compiler)
  if versions[compiler] == nil then
    local out = output(compiler .. ' --version')
    versions[compiler] = out ~= '' and (compiler:match('nvcc') and out:gsub('%s+$', '')
                                        :match('[^\n]*$') or out:match('[^\n]*')) or false
  end
  return versions[compiler] or nil
end

function M.cc() return os.getenv('CC') or 'cc' end

-- nvcc from $NVCC, the PATH, then /usr/local/cuda/bin; nil when none is found.
function M.nvcc()
  local nvcc = os.getenv('NVCC')
  if nvcc and nvcc ~= '' then return nvcc end
  local found = output('command -v nvcc'):match('[^\n]+')
  if found then return found end
  local f = io.open('/usr/local/cuda/bin/nvcc', 'rb')
  if f then f:close(); return '/usr/local/cuda/bin/nvcc' end
end

-- absolute: the compiler names the headers it read as it was given them, and a record of
-- paths relative to one folder would name other files (or none) from another
local here = require('fused.ext.cache').absolute(debug.getinfo(1, 'S').source:match('^@(.*/)') or './')
local function exists(path)
  local f = io.open(path, 'rb')
  if f then f:close() end
  return f ~= nil
end

-- The folder holding fused_ext.h: $FUSED_INCLUDE, the checkout's c/, else where `make install`
-- (or luarocks) put it, which it wrote into fused/ext/include_dir.lua.
function M.include_dir()
  local env = os.getenv('FUSED_INCLUDE')
  if env and env ~= '' then return require('fused.ext.cache').absolute(env) end
  if exists(here .. '../../../c/fused_ext.h') then return here .. '../../../c' end
  local ok, installed = pcall(require, 'fused.ext.include_dir')
  if ok and exists(installed .. '/fused_ext.h') then return installed end
  error("fused.ext: fused_ext.h not found (set FUSED_INCLUDE to its folder)", 3)
end

-- The CPU capability fused runs now and the flags its kernels were compiled with
-- (fused_cpu_capability_flags: the Makefile's CAPABILITY_FLAGS), as a list: C sources compile
-- with them, so that their vectors (fused_simd.h) are as wide as fused's own.
function M.vector_flags()
  local flags = {}
  for f in ffi.string(lib.C.fused_cpu_capability_flags()):gmatch('%S+') do flags[#flags + 1] = f end
  return ffi.string(lib.C.fused_cpu_capability()), flags
end

-- libfused's folder, for -L and the rpath; libfused_cuda's, nil without one.
function M.lib_dir() return lib.path:match('^(.*)/') or '.' end
function M.cuda_lib_dir()
  local path = lib.find('libfused_cuda', 'FUSED_CUDA_LIB')
  return path and (path:match('^(.*)/') or '.')
end

-- The CUDA emulator's headers (cuda_runtime.h, cublas_v2.h, cusparse.h): the checkout's
-- cuda/emu, else emu/ beside fused_ext.h where `make install` put them.
function M.emu_include_dir()
  if exists(here .. '../../../cuda/emu/cuda_runtime.h') then return here .. '../../../cuda/emu' end
  return M.include_dir() .. '/emu'
end

-- How .cu sources compile (compiler, flags) and link (linker, link) here, inc being the -I of
-- fused's headers: nvcc against libfused_cuda, or, where cuda tensors run on the CUDA emulator,
-- the C++ compiler against its headers and library (docs/cuda.md). nil and why not when
-- neither can.
function M.cuda(inc, libdir)
  local cuda = require 'fused.cuda'
  if cuda.is_emulated() then
    local cxx = os.getenv('CXX') or 'c++'
    local dir, name = cuda.path:match('^(.*)/lib([^/]*)%.so$')
    return { compiler = cxx,
             -- nvcc includes cuda_runtime.h in every .cu: so does the emulator
             flags = { '-x', 'c++', '-std=c++17', '-O2', '-fPIC', '-fopenmp',
                       '-I' .. M.emu_include_dir(), '-include', 'cuda_runtime.h', inc },
             linker = cxx,
             link = { '-fopenmp', '-L' .. libdir, '-L' .. dir, '-l' .. name, '-lfused', '-lm',
                      '-Wl,-rpath,' .. libdir .. ':' .. dir, '-Wl,-z,nodelete' } }
  end
  local nvcc, cuda_dir = M.nvcc(), M.cuda_lib_dir()
  if not nvcc then return nil, 'needs nvcc, which was not found (set NVCC, or put it on the PATH)' end
  if not cuda_dir then
    return nil, 'needs libfused_cuda.so, which was not found (run `make` where nvcc is)'
  end
  return { compiler = nvcc,
           flags = { '-O3', '-Xcompiler', '-fPIC', '-gencode', 'arch=compute_90,code=sm_90',
                     '-gencode', 'arch=compute_90,code=compute_90', inc },
           linker = nvcc,
           link = { '-L' .. libdir, '-L' .. cuda_dir, '-lfused_cuda', '-lfused', '-lm',
                    '-Xlinker', '-rpath,' .. libdir .. ':' .. cuda_dir, '-Xlinker', '-z,nodelete' } }
end

-- fused's version and its two headers: a build against other headers is another build.
function M.fused_key(version)
  local dir = M.include_dir()
  local h = hash.add(nil, version)
  for _, name in ipairs({ 'fused.h', 'fused_ext.h' }) do
    h = hash.add(h, hash.read(dir .. '/' .. name) or '')
  end
  return hash.hex(h)
end

return M
