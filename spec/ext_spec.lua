-- fused.ext.load: a cached, incremental, concurrent-safe build of C sources into a library
-- bound through the FFI (docs/extending.md). Each load runs in a new luajit process, as a
-- user's next run would; what it did is read from `verbose`, never from timings.
local fused = require 'fused'

local root = io.popen('pwd'):read('*l')
local dir = os.tmpname()
os.remove(dir)
assert(os.execute('mkdir -p ' .. dir .. '/src') == 0)
local src, cache = dir .. '/src/', dir .. '/cache'

local function write(path, text)
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

local LOAD = [[
local fused = require 'fused'
local ok, e = pcall(function()
  local ext = fused.ext.load{name = 'pair', sources = {'%sa.c', '%sb.c'}, cache_dir = '%s',
                             cdef = 'int ext_a(void); int ext_b(void);', verbose = true}
  print('value ' .. ext.ext_a() .. ' ' .. ext.ext_b())
end)
if not ok then print('error: ' .. e) end
]]

-- Runs lua code in a new luajit from the checkout; returns what it printed.
local function luajit(code, env)
  local p = io.popen(string.format("cd %s && %s LUA_PATH='%s/lua/?.lua;%s/lua/?/init.lua;;' "
                                   .. "luajit -e %q 2>&1", root, env or '', root, root, code))
  local out = p:read('*a')
  p:close()
  return out
end

local function load_pair(env) return luajit(LOAD:format(src, src, cache), env) end

local function count(text, pattern)
  local n = 0
  for _ in text:gmatch(pattern) do n = n + 1 end
  return n
end

describe('fused.ext.load', function()
  setup(function()
    write(src .. 'a.h', '#define A_VALUE 1\n')
    write(src .. 'a.c', '#include "a.h"\nint ext_a(void) { return A_VALUE; }\n')
    write(src .. 'b.c', 'int ext_b(void) { return 2; }\n')
  end)
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it('compiles every source on the first load, and then nothing in a new process', function()
    local first = load_pair()
    assert.truthy(first:find('value 1 2', 1, true), first)
    assert.are.equal(2, count(first, 'compiling '), first)
    assert.truthy(first:find('linking ', 1, true), first)
    local second = load_pair()
    assert.truthy(second:find('value 1 2', 1, true), second)
    assert.are.equal(0, count(second, 'compiling '), second)
    assert.are.equal(0, count(second, 'linking '), second)
    assert.are.equal(3, count(second, 'reusing '), second) -- two objects, the library
  end)

  it('recompiles only the source that changed, and a source whose header changed', function()
    load_pair()
    write(src .. 'b.c', 'int ext_b(void) { return 20; }\n')
    local out = load_pair()
    assert.truthy(out:find('value 1 20', 1, true), out)
    assert.truthy(out:find('compiling ' .. src .. 'b.c', 1, true), out)
    assert.are.equal(1, count(out, 'compiling '), out)
    write(src .. 'a.h', '#define A_VALUE 10\n')
    out = load_pair()
    assert.truthy(out:find('value 10 20', 1, true), out)
    assert.truthy(out:find('compiling ' .. src .. 'a.c', 1, true), out)
    assert.are.equal(1, count(out, 'compiling '), out)
  end)

  it('gives the new code to a second load in the same process', function()
    write(src .. 'c.c', 'int ext_c(void) { return 1; }\n')
    local out = luajit(string.format([[
      local fused = require 'fused'
      local function load() return fused.ext.load{name = 'one', sources = {'%sc.c'},
                                                 cache_dir = '%s', cdef = 'int ext_c(void);'} end
      local before = load().ext_c()
      local f = io.open('%sc.c', 'wb'); f:write('int ext_c(void) { return 2; }\n'); f:close()
      print('values ' .. before .. ' ' .. load().ext_c())]], src, cache, src))
    assert.truthy(out:find('values 1 2', 1, true), out)
  end)

  it("raises the compiler's message with the file and line of the error", function()
    write(src .. 'bad.c', 'int ext_bad(void) {\n  return 1 +;\n}\n')
    local ok, err = pcall(fused.ext.load, { name = 'bad', sources = { src .. 'bad.c' },
                                            cache_dir = cache })
    assert.is_false(ok)
    assert.truthy(err:find('compiling ' .. src .. 'bad.c failed', 1, true), err)
    assert.truthy(err:find('bad.c:2:', 1, true), err)
    assert.truthy(err:find('error', 1, true), err)
  end)

  it('lets two processes load the same extension at once', function()
    local fresh = dir .. '/cache2'
    local script = LOAD:format(src, src, fresh)
    local cmd = string.format("cd %s && export LUA_PATH='%s/lua/?.lua;%s/lua/?/init.lua;;'; "
                              .. "(luajit -e %q > %s/one.out 2>&1 & luajit -e %q > %s/two.out 2>&1 & wait)",
                              root, root, root, script, dir, script, dir)
    assert.are.equal(0, os.execute(cmd))
    for _, name in ipairs({ 'one', 'two' }) do
      local out = io.open(dir .. '/' .. name .. '.out'):read('*a')
      assert.truthy(out:find('value 10 20', 1, true), out)
    end
    local p = io.popen('ls ' .. fresh .. '/pair')
    local files = p:read('*a')
    p:close()
    assert.is_nil(files:find('tmp', 1, true), files) -- nothing half-written left behind
  end)

  it('names nvcc when a .cu source needs it and it is not there', function()
    write(src .. 'k.cu', '__global__ void k() {}\n')
    local out = luajit(string.format([[
      print(select(2, pcall(require('fused').ext.load, {name = 'k', sources = {'%sk.cu'},
                                                        cache_dir = '%s'})))]], src, cache),
      'NVCC=/nonexistent/nvcc FUSED_NO_CUDA=1')
    assert.truthy(out:find("source '" .. src .. "k.cu' needs /nonexistent/nvcc, which does not run", 1, true), out)
  end)

  it('builds a .cu source with the C++ compiler where cuda tensors run on the CUDA emulator', function()
    write(src .. 'k2.cu', '__global__ void k2(int *out) { *out = threadIdx.x; }\n'
                        .. 'extern "C" int ext_k2(void) { return 7; }\n')
    local out = luajit(string.format([[
      local ffi = require 'ffi'
      local lib = require('fused').ext.load({name = 'k2', sources = {'%sk2.cu'}, cache_dir = '%s',
                                             cdef = 'int ext_k2(void);'})
      print('value', lib.ext_k2())]], src, cache),
      'env -u FUSED_NO_CUDA NVCC=/nonexistent/nvcc FUSED_CUDA_EMULATOR=1')
    assert.truthy(out:find('value\t7', 1, true), out)
  end)

  it('builds against the headers that make install put in a prefix, from another folder', function()
    local prefix = dir .. '/prefix'
    local make = io.popen(string.format('cd %s && make install PREFIX=%s 2>&1', root, prefix))
    local made = make:read('*a')
    assert.is_true(make:close() ~= nil, made)
    assert.truthy(io.open(prefix .. '/include/fused/fused_ext.h'), 'fused_ext.h not installed')
    write(src .. 'uses.c', '#include <fused_ext.h>\nint ext_uses(void) { '
                         .. 'return fused_check_tensor("ext_uses", "t", 0); }\n'
                         .. 'double ext_exp(double x) { return exp_nonpos(x); }\n')
    local code = string.format([[
      local fused = require 'fused'
      assert(not package.loaded['fused.lib'].path:find('%s', 1, true), 'the checkout was loaded')
      local ext = fused.ext.load{name = 'uses', sources = {'%suses.c'}, cache_dir = '%s',
                                 cdef = 'int ext_uses(void); double ext_exp(double x);'}
      print('status ' .. ext.ext_uses() .. ': ' .. require('ffi').string(fused.C.fused_last_error()))
      print(string.format('exp(-1) %%.15f', ext.ext_exp(-1)))]],
      root, src, cache)
    -- FUSED_LIB (the sanitizer run's) would point back into the checkout.
    local p = io.popen(string.format("cd %s && FUSED_LIB= LUA_PATH='%s/share/lua/5.1/?.lua;%s/share/lua/5.1/?/init.lua;;' "
                                     .. "LUA_CPATH='%s/lib/lua/5.1/?.so;;' luajit -e %q 2>&1",
                                     dir, prefix, prefix, prefix, code))
    local out = p:read('*a')
    p:close()
    assert.truthy(out:find("status -1: ext_uses: argument 't' expected a tensor, got nil", 1, true), out)
    assert.truthy(out:find('exp(-1) 0.367879441171442', 1, true), out) -- fused_simd.h's
  end)

  it('compiles C sources with the vector flags of the CPU capability, one build for each', function()
    local flags = { avx512 = '-mavx512f -mavx512dq -mavx512vl -mavx512bw -mavx2 -mfma',
                    avx2 = '-mavx2 -mfma', default = 'no vector flags' } -- the Makefile's
    local before, runs = fused.config().cpu_capability, {}
    for _, name in ipairs({ 'avx512', 'avx2', 'default' }) do
      if pcall(fused.set_cpu_capability, name) then runs[#runs + 1] = name end
    end
    fused.set_cpu_capability(before)
    local fresh = dir .. '/cache3'
    local function load(capability)
      return luajit(LOAD:format(src, src, fresh), 'FUSED_CPU_CAPABILITY=' .. capability)
    end
    for _, name in ipairs(runs) do
      local out = load(name)
      assert.truthy(out:find('cpu capability ' .. name .. ': C sources compile with ' .. flags[name]
                             .. '\n', 1, true), out)
      assert.are.equal(2, count(out, 'compiling '), out)
    end
    local again = load(runs[1])
    assert.are.equal(0, count(again, 'compiling '), again)
    assert.truthy(again:find('value 10 20', 1, true), again)
  end)

  it('builds sources and a cache in folders whose names have spaces and quotes', function()
    local odd = dir .. [[/it's a "src" dir/]]
    assert.are.equal(0, os.execute(string.format('mkdir -p %q', odd)))
    write(odd .. 'q #1.h', '#define Q_VALUE 7\n')
    write(odd .. 'q.c', '#include "q #1.h"\nint ext_q(void) { return Q_VALUE; }\n')
    local code = string.format([[
      local ext = require('fused').ext.load{name = 'q', sources = {[=[%sq.c]=]}, verbose = true,
                                            cache_dir = [=[%s/cache "4" isn't]=], cdef = 'int ext_q(void);'}
      print('value ' .. ext.ext_q())]], odd, dir)
    local first = luajit(code)
    assert.truthy(first:find('value 7', 1, true), first)
    local again = luajit(code)
    assert.truthy(again:find('value 7', 1, true), again)
    assert.are.equal(0, count(again, 'compiling '), again)
    write(odd .. 'q #1.h', '#define Q_VALUE 8\n') -- the header, read back from the -MMD record
    local changed = luajit(code)
    assert.truthy(changed:find('value 8', 1, true), changed)
    assert.are.equal(1, count(changed, 'compiling '), changed)
  end)

  it('refuses at load a library with an undefined symbol, naming it, rather than exiting at the call', function()
    write(src .. 'undef.c', 'int ext_missing(void);\nint ext_undef(void) { return ext_missing(); }\n')
    local out = luajit(string.format([[
      local ok, err = pcall(require('fused').ext.load, {name = 'undef', sources = {'%sundef.c'},
                                                       cache_dir = '%s', cdef = 'int ext_undef(void);'})
      print(ok, err)]], src, cache))
    assert.truthy(out:find("fused.ext.load: extension 'undef': library " .. cache .. '/undef/libundef-',
                           1, true), out)
    assert.truthy(out:find('undefined symbol: ext_missing', 1, true), out)
  end)

  it('rejects bad options naming them', function()
    assert.has_error(function() fused.ext.load { name = 'x y', sources = { 'a.c' } } end,
      "fused.ext.load: option 'name' expected a name of letters, digits and _, got \"x y\"")
    assert.has_error(function() fused.ext.load { name = 'x', sources = { src .. 'a.txt' }, cache_dir = cache } end,
      "fused.ext.load: source '" .. src .. "a.txt' expected a .c, .cu or .h file")
    assert.has_error(function() fused.ext.load { name = 'x', sources = 'a.c' } end,
      "fused.ext.load: option 'sources' expected a list of strings, got string")
  end)
end)
