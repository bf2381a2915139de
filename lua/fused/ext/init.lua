-- fused.ext: your own ops and cells in C (and CUDA), compiled on the fly into a cached shared
-- library and bound through the FFI (docs/extending.md).
--
--   local ext = fused.ext.load{name = 'softplus', sources = {'softplus.c', 'softplus.h'},
--                              cflags = {...}, cuda_cflags = {...}, cache_dir =, verbose =}
--   fused.ext.check(ext.softplus_forward(y, x))     -- raises fused_last_error() on -1
--   local mgu = fused.ext.cell{name = 'mgu', sources = {'mgu.c'}, gates = 2, state = 'h',
--                              saved = 6, h_prev = 5, d_ih = 3, d_hh = 0}
--   local rnn = fused.nn.RNN(input_size, hidden_size, {cell = mgu, num_layers = 2})
--   -- on CUDA too, with the same steps compiled as CUDA (built on the cell's first CUDA run):
--   fused.ext.cell{..., sources = {'mgu.c'}, cuda_sources = {'mgu.cu'}} -- mgu.cu: #include "mgu.c"
--
-- .c sources compile with $CC (cc) and the vector flags of the CPU capability fused runs (an
-- object per capability), .cu ones with nvcc, into one library linked to libfused
-- (and libfused_cuda for .cu); a .h source is not compiled: its text between
-- /* ffi-begin */ and /* ffi-end */ (or all of it) is given to ffi.cdef, as `cdef` is. The cache
-- is opts.cache_dir, else $FUSED_EXT_CACHE, else $XDG_CACHE_HOME/fused/ext, else
-- ~/.cache/fused/ext, one folder per name.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local options = require 'fused.options'
local toolchain = require 'fused.ext.toolchain'
local build = require 'fused.ext.build'
local hash = require 'fused.ext.hash'
local cache = require 'fused.ext.cache'

local M = {}

pcall(ffi.cdef, [[
void *dlopen(const char *filename, int flags);
char *dlerror(void);
int dlclose(void *handle);
]])
local RTLD_NOW = 2
-- Resolved now: looking a name up in ffi.C calls dlsym, which clears the error dlerror reports.
local dlopen, dlerror, dlclose = ffi.C.dlopen, ffi.C.dlerror, ffi.C.dlclose

-- ffi.load binds lazily: a symbol the library lacks would end the process at its first call
-- (exit 127). Binding every symbol once first turns that into an error here, in the loader's
-- words (which name the symbol).
local function load_library(fn, name, so)
  local handle = dlopen(so, RTLD_NOW)
  if handle == nil then
    local why = dlerror()
    error(string.format("%s: extension '%s': library %s cannot be loaded: %s", fn, name, so,
                        why ~= nil and ffi.string(why) or 'dlopen failed'), 5)
  end
  dlclose(handle)
  return ffi.load(so)
end

-- The cache's top folder for opts (cache.root).
function M.cache_root(opts)
  return (cache.root('fused.ext.cache_root', options.check(opts, 'fused.ext.cache_root',
                                                             { 'cache_dir' })))
end

local function expect_list(fn, name, v, optional)
  if v == nil and optional then return {} end
  if type(v) ~= 'table' or (#v == 0 and not optional) then
    error(string.format("%s: option '%s' expected a list of strings, got %s", fn, name,
                        type(v) == 'table' and 'an empty table' or type(v)), 4)
  end
  for i, s in ipairs(v) do
    if type(s) ~= 'string' or s:find('\0', 1, true) then -- a command ends at a NUL
      error(string.format("%s: option '%s' expected strings, got %s at %d", fn, name,
                          type(s) == 'string' and 'a string with a NUL byte' or type(s), i), 4)
    end
  end
  return v
end

-- The declarations of a header: between the ffi markers when it has them, else all of it.
local function declarations(text)
  return text:match('/%*%s*ffi%-begin%s*%*/(.-)/%*%s*ffi%-end%s*%*/') or text
end

local declared = {} -- cdef texts already given: LuaJIT refuses to declare a name twice

local LOAD_OPTIONS = { 'name', 'sources', 'cdef', 'cflags', 'cuda_cflags', 'cache_dir', 'verbose' }

-- Returns the loaded library (its namespace) and its path.
local function load(fn, opts)
  local name = opts.name
  if type(name) ~= 'string' or not name:match('^[%w_]+$') then
    error(string.format("%s: option 'name' expected a name of letters, digits and _, got %s", fn,
                        type(name) == 'string' and string.format('%q', name) or type(name)), 4)
  end
  local sources = expect_list(fn, 'sources', opts.sources)
  local cflags = expect_list(fn, 'cflags', opts.cflags, true)
  local cuda_cflags = expect_list(fn, 'cuda_cflags', opts.cuda_cflags, true)
  local say = opts.verbose and function(f, ...) print('fused.ext ' .. name .. ': ' .. f:format(...)) end
    or function() end
  local dir, top = cache.extension_folder(fn, opts, name)
  local inside = top == '/' and '/' or top .. '/'
  say('cache %s', dir)
  local inc = '-I' .. toolchain.include_dir()
  local capability, vector_flags = toolchain.vector_flags()
  say('cpu capability %s: C sources compile with %s', capability,
      #vector_flags > 0 and table.concat(vector_flags, ' ') or 'no vector flags')
  local fused_key = toolchain.fused_key(require('fused').version)
  local objects, cdefs, cuda = {}, {}, nil -- cuda: how the .cu sources build, when any
  for _, src in ipairs(sources) do
    if src:find('\n', 1, true) then
      error(string.format("%s: source %q: a name with a newline cannot be built (the compiler's "
                          .. "list of the files it read cannot hold one)", fn, src), 4)
    end
    local path = cache.absolute(src)
    local kind = path:match('%.([%w]+)$')
    if kind == 'h' then
      local text, why = hash.read(path)
      if not text then error(string.format("%s: source '%s' cannot be read: %s", fn, src, why), 4) end
      cdefs[#cdefs + 1] = declarations(text)
    elseif kind == 'c' or kind == 'cu' then
      local cu, why
      if kind == 'cu' then
        cu, why = toolchain.cuda(inc, toolchain.lib_dir())
        if not cu then error(string.format("%s: source '%s' %s", fn, src, why), 4) end
        cuda = cu
      end
      local compiler = kind == 'c' and toolchain.cc() or cu.compiler
      if not toolchain.version(compiler) then
        error(string.format("%s: source '%s' needs %s, which does not run (`%s --version` "
                            .. "failed)", fn, src, compiler, compiler), 4)
      end
      local flags = kind == 'c'
        and { '-O3', '-fPIC', '-std=gnu11', '-fopenmp-simd', inc, unpack(vector_flags) }
        or { unpack(cu.flags) }
      for _, f in ipairs(kind == 'c' and cflags or cuda_cflags) do flags[#flags + 1] = f end
      objects[#objects + 1] = build.object(fn, dir, { path = path, compiler = compiler, flags = flags,
        -- a source in the cache (fused.cell's) is held to the cache's rule
        cached = path:sub(1, #inside) == inside,
        -- a new compiler or a new fused is a new build
        version = toolchain.version(compiler) .. '\0' .. fused_key }, say)
    else
      error(string.format("%s: source '%s' expected a .c, .cu or .h file", fn, src), 4)
    end
  end
  if #objects == 0 then error(string.format("%s: option 'sources' has no .c or .cu file", fn), 4) end
  if opts.cdef ~= nil then
    if type(opts.cdef) ~= 'string' then
      error(string.format("%s: option 'cdef' expected a string, got %s", fn, type(opts.cdef)), 4)
    end
    cdefs[#cdefs + 1] = opts.cdef
  end
  local libdir = toolchain.lib_dir()
  local link = { '-L' .. libdir, '-lfused', '-lm', '-Wl,-rpath,' .. libdir, '-Wl,-z,nodelete' }
  local so = build.library(fn, dir, name, objects, cuda and cuda.linker or toolchain.cc(),
                           cuda and cuda.link or link, say)
  for _, text in ipairs(cdefs) do
    if not declared[text] then
      ffi.cdef(text)
      declared[text] = true
    end
  end
  say('loading %s', so)
  return load_library(fn, name, so), so
end

local loaded = {} -- kept for the life of the program, as lib.C is

function M.load(opts)
  local fn = 'fused.ext.load'
  opts = options.check(opts, fn, LOAD_OPTIONS)
  local namespace = load(fn, opts)
  loaded[#loaded + 1] = namespace
  return namespace
end

local STEP_CDEF = [[
void %s_forward_f32(int64_t H, float *s, const float *gh, const float *b_ih, const float *b_hh,
                    float *c, float *h_next, float *out);
void %s_forward_f64(int64_t H, double *s, const double *gh, const double *b_ih,
                    const double *b_hh, double *c, double *h_next, double *out);
void %s_backward_f32(int64_t H, float *s, const float *d_out, float *dh, float *dc);
void %s_backward_f64(int64_t H, double *s, const double *d_out, double *dh, double *dc);
]]

local CUDA_STEP_CDEF = [[
int %s_cuda_forward_f32(const fused_cell_launch *step);
int %s_cuda_forward_f64(const fused_cell_launch *step);
int %s_cuda_backward_f32(const fused_cell_launch *step);
int %s_cuda_backward_f64(const fused_cell_launch *step);
]]

local CELL_OPTIONS = { 'name', 'sources', 'cflags', 'cache_dir', 'verbose', 'gates', 'state',
                       'params', 'outputs', 'saved', 'h_prev', 'd_ih', 'd_hh', 'x', 'd_x', 'step',
                       'cuda_sources', 'cuda_cflags' }
local registered = {} -- library path and step -> cell id: one registration per build
local registered_cuda = {} -- cell id -> true once its CUDA steps are given

-- Builds the cell's cuda_sources (the same FUSED_CELL_FORWARD/BACKWARD compiled as CUDA,
-- c/fused_cell_cuda.h) into a library of their own and gives the cell its device steps; once
-- per cell and process, on its first CUDA run (functional.rnn_forward), so that a cell used on
-- the CPU only never needs the CUDA toolchain.
local function cuda_steps(fn, opts, step, id, cuda_sources)
  return function()
    if registered_cuda[id] then return end
    local namespace = load(fn, { name = opts.name .. '_cuda', sources = cuda_sources,
      cuda_cflags = opts.cuda_cflags, cache_dir = opts.cache_dir, verbose = opts.verbose,
      cdef = CUDA_STEP_CDEF:gsub('%%s', step) })
    loaded[#loaded + 1] = namespace
    local f = {}
    for i, way in ipairs({ 'forward_f32', 'backward_f32', 'forward_f64', 'backward_f64' }) do
      local ok, sym = pcall(function() return namespace[step .. '_cuda_' .. way] end)
      if not ok then
        error(string.format("%s: %s's cuda_sources define no %s_cuda_%s (FUSED_CELL_FORWARD/"
                            .. "BACKWARD(%s, ...) compiled as CUDA: fused_ext.h)", fn, opts.name,
                            step, way, step), 3)
      end
      f[i] = ffi.cast('fused_cell_cuda_step', sym)
    end
    if lib.C.fused_rnn_register_cell_cuda(id, f[1], f[2], f[3], f[4]) ~= 0 then
      error(fn .. ': ' .. ffi.string(lib.C.fused_last_error()), 3)
    end
    registered_cuda[id] = true
  end
end

-- A cell of the engine from C steps (FUSED_CELL_FORWARD/BACKWARD in fused_ext.h): gates G,
-- state 'h', 'hc' or a list of names (those after the first in c, side by side), params the
-- names of its per-unit parameters (after the G recurrent biases in b_hh), outputs the blocks
-- of H its step writes to out (1), its saved row layout (saved blocks, h_prev, d_ih, d_hh: cell_layout.h;
-- defaults G + 1 blocks with h_prev last and d_ih = d_hh = 0; x and d_x, where a step reads
-- the layer's input and writes its gradient, default 0: none) and step, the name its steps
-- were defined under (default: name). Returns the spec that functional.rnn_forward and
-- fused.nn.RNN take as their cell.
function M.cell(opts)
  local fn = 'fused.ext.cell'
  opts = options.check(opts, fn, CELL_OPTIONS)
  local step = opts.step or opts.name
  if type(step) ~= 'string' or not step:match('^[%a_][%w_]*$') then
    error(string.format("%s: option 'step' expected a C name, got %s", fn, tostring(step)), 2)
  end
  local function int(key, default, low)
    local v = opts[key] == nil and default or opts[key]
    if type(v) ~= 'number' or v ~= math.floor(v) or v < low then
      error(string.format("%s: option '%s' expected an integer >= %d, got %s", fn, key, low,
                          tostring(v)), 3)
    end
    return v
  end
  local gates = int('gates', nil, 1)
  local saved = int('saved', gates + 1, gates + 1)
  -- 'h', 'hc', or a list of the states' names (h's first; the others are c's blocks)
  local states = opts.state == 'h' and { 'h' } or opts.state == 'hc' and { 'h', 'c' } or opts.state
  if type(states) ~= 'table' or #states < 1 then
    error(string.format("%s: option 'state' expected 'h', 'hc' or a list of names, got %s", fn,
                        tostring(opts.state)), 2)
  end
  local params = opts.params or {}
  if type(params) ~= 'table' then
    error(string.format("%s: option 'params' expected a list of names, got %s", fn,
                        type(params)), 2)
  end
  local namespace, so = load(fn, { name = opts.name, sources = opts.sources, cflags = opts.cflags,
    cache_dir = opts.cache_dir, verbose = opts.verbose, cdef = STEP_CDEF:gsub('%%s', step) })
  loaded[#loaded + 1] = namespace
  local key = so .. '\0' .. step
  if not registered[key] then
    local def = ffi.new('fused_cell_def', {
      name = opts.name, gates = gates, saved = saved, has_c = #states - 1, params = #params,
      outputs = int('outputs', 1, 1),
      h_prev = int('h_prev', saved - 1, 0), d_ih = int('d_ih', 0, 0), d_hh = int('d_hh', 0, 0),
      x = int('x', 0, 0), d_x = int('d_x', 0, 0) })
    for _, f in ipairs({ 'forward_f32', 'backward_f32', 'forward_f64', 'backward_f64' }) do
      local ok, sym = pcall(function() return namespace[step .. '_' .. f] end)
      if not ok then
        error(string.format("%s: %s defines no %s_%s (FUSED_CELL_FORWARD/BACKWARD(%s, ...) in "
                            .. "fused_ext.h)", fn, opts.name, step, f, step), 2)
      end
      def[f] = sym
    end
    local id = lib.C.fused_rnn_register_cell(def)
    if id < 0 then error(fn .. ': ' .. ffi.string(lib.C.fused_last_error()), 2) end
    registered[key] = id
  end
  local spec = { name = opts.name, id = registered[key], gates = gates, has_c = #states > 1,
                 states = states, params = params, outputs = int('outputs', 1, 1),
                 reads_x = int('x', 0, 0) > 0 }
  if opts.cuda_sources ~= nil then
    local cuda_sources = expect_list(fn, 'cuda_sources', opts.cuda_sources)
    expect_list(fn, 'cuda_cflags', opts.cuda_cflags, true)
    for _, src in ipairs(cuda_sources) do
      if not src:match('%.cu$') and not src:match('%.h$') then
        error(string.format("%s: option 'cuda_sources' expected .cu (or .h) files, got '%s'",
                            fn, src), 2)
      end
    end
    spec.build_cuda = cuda_steps(fn, opts, step, spec.id, cuda_sources)
  end
  return spec
end

-- Whether .cu sources can be built and used here: cuda tensors run (on a GPU, or on the CUDA
-- emulator, which builds them with the C++ compiler) and the toolchain for them is found.
function M.has_cuda()
  local cuda = require 'fused.cuda'
  return (cuda.is_available() or cuda.is_emulated())
    and toolchain.cuda('', toolchain.lib_dir()) ~= nil
end

-- Raises fused_last_error() when an extension's function returned a status other than 0.
function M.check(rc)
  if rc ~= 0 then error(ffi.string(lib.C.fused_last_error()), 2) end
end

return M
