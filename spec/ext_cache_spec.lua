-- The extension cache cannot be turned against its user (docs/extending.md, "The cache"): it
-- is created private and refused when it is not; a library or object put into it is built
-- again, not run; its dependency record cannot make fused read a device, a FIFO or a huge
-- file; no path reaches the compiler as an option or the shell as code. Each load runs in a
-- new luajit, as a user's next run would.
local fused = require 'fused'
local helper = require 'spec.helper'
local hash = require 'fused.ext.hash'

local root = io.popen('pwd'):read('*l')
local dir = os.tmpname()
os.remove(dir)
assert(os.execute('mkdir -p ' .. dir .. '/src') == 0)
local src = dir .. '/src/'

local function write(path, text)
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

local quote = helper.shell_quote

local function sh(command)
  local p = io.popen(command .. ' 2>&1')
  local out = p:read('*a')
  p:close()
  return out
end

local libraries = helper.library_env(root)

-- Runs lua code in a new luajit from the checkout (at most 60 s: a load that blocks fails);
-- returns what it printed.
local function luajit(code, env, cwd)
  return sh(string.format("cd %s && %s %s LUA_PATH='%s/lua/?.lua;%s/lua/?/init.lua;;' "
                          .. "timeout 60 luajit -e %s", quote(cwd or root), libraries, env or '',
                          root, root, quote(code)))
end

-- Loads extension `name` from src/<source> with cache_dir (a Lua expression) in a new
-- process; prints "value N" or "error: ...".
local function load(name, source, cache_dir, extra)
  return luajit(string.format([[
    local ok, e = pcall(function()
      local ext = require('fused').ext.load{name = %q, sources = {%q}, cache_dir = %s,
                                            cdef = 'int ext_v(void);', verbose = true%s}
      print('value ' .. ext.ext_v())
    end)
    if not ok then print('error: ' .. e) end]], name, src .. source, cache_dir, extra or ''))
end

local function mode(path) return sh('stat -c %a ' .. quote(path)):match('%d+') end
local function one(pattern) return (sh('ls -d ' .. pattern):match('[^\n]+')) end

describe('the fused.ext cache', function()
  setup(function()
    write(src .. 'v1.c', 'int ext_v(void) { return 1; }\n')
    write(src .. 'v2.c', 'int ext_v(void) { return 666; }\n')
  end)
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it('keys builds with SHA-256 (FIPS 180-4 vectors), of strings and files', function()
    assert.are.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
                     hash.hex(hash.sha256('abc')))
    assert.are.equal('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
                     hash.hex(hash.sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))
    assert.are.equal('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
                     hash.hex(hash.sha256('')))
    local million = string.rep('a', 1000000)
    write(dir .. '/million', million)
    assert.are.equal('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
                     hash.hex(hash.file(dir .. '/million')))
    assert.are_not.equal(hash.add(hash.add(nil, 'ab'), 'c'), hash.add(hash.add(nil, 'a'), 'bc'))
  end)

  it('builds a library swapped into the cache again rather than run it, and an object too', function()
    local cache = dir .. '/plant'
    local first = load('plant', 'v1.c', ('%q'):format(cache))
    assert.truthy(first:find('value 1\n', 1, true), first)
    local so = one(cache .. '/plant/libplant-*.so')
    -- another library with the same symbols, as an attacker would build it
    assert.are.equal('', sh(string.format('cc -shared -fPIC -o %s/evil.so %sv2.c', dir, src)))
    sh(string.format('cp %s/evil.so %s', dir, so))
    local out = load('plant', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find('value 1\n', 1, true), out)
    assert.truthy(out:find(so .. ' is not what was built: building it again', 1, true), out)
    assert.truthy(out:find('linking ', 1, true), out)
    -- an object swapped in, the library gone: the object is compiled again before the link
    local obj = one(cache .. '/plant/v1.c-*.o')
    sh(string.format('cc -c -fPIC -o %s %sv2.c && rm %s', obj, src, so))
    out = load('plant', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find('value 1\n', 1, true), out)
    assert.truthy(out:find(obj .. ' is not what was built', 1, true), out)
    assert.truthy(out:find('compiling ' .. src .. 'v1.c', 1, true), out)
    -- a library without its record (dropped under the right name) is built too
    sh(string.format('cp %s/evil.so %s && rm %s.record', dir, so, so))
    out = load('plant', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find('value 1\n', 1, true), out)
    assert.truthy(out:find(so .. ' has no record', 1, true), out)
    -- and afterwards, nothing is built
    out = load('plant', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find('value 1\n', 1, true), out)
    assert.is_nil(out:find('compiling', 1, true), out)
    assert.is_nil(out:find('linking', 1, true), out)
  end)

  it('keys flags word by word: {"-DA=2 -DB"} and {"-DA=2", "-DB"} are two builds', function()
    write(src .. 'words.c', '#define DB 1\n#ifdef B\nint ext_v(void) { return A + 10; }\n'
                         .. '#else\nint ext_v(void) { return A; }\n#endif\n')
    local cache = ('%q'):format(dir .. '/words')
    local split = load('words', 'words.c', cache, ", cflags = {'-DA=2', '-DB'}")
    assert.truthy(split:find('value 12\n', 1, true), split)
    local joined = load('words', 'words.c', cache, ", cflags = {'-DA=2 -DB'}")
    assert.truthy(joined:find('value 1\n', 1, true), joined) -- A is "2 -DB", DB is 1
  end)

  it('creates every folder it makes 0700 and every file 0600, whatever the umask', function()
    local cache = dir .. '/umask/a/b'
    local out = luajit(string.format([[
      local ext = require('fused').ext.load{name = 'm', sources = {%q}, cache_dir = %q,
                                            cdef = 'int ext_v(void);'}
      print('value ' .. ext.ext_v())]], src .. 'v1.c', cache), 'umask 000 &&')
    assert.truthy(out:find('value 1\n', 1, true), out)
    for _, level in ipairs({ dir .. '/umask', dir .. '/umask/a', cache, cache .. '/m' }) do
      assert.are.equal('700', mode(level), level)
    end
    local files = sh('ls ' .. cache .. '/m')
    for f in files:gmatch('[^\n]+') do assert.are.equal('600', mode(cache .. '/m/' .. f), f) end
  end)

  it('refuses a cache folder that others may write, naming the reason, the path and cache_dir', function()
    local cache = dir .. '/open'
    assert.truthy(load('open', 'v1.c', ('%q'):format(cache)):find('value 1\n', 1, true))
    sh('chmod 0777 ' .. cache .. '/open')
    local out = load('open', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find("error: fused.ext.load: option 'cache_dir': " .. cache .. '/open is '
                           .. 'writable by group and others (mode 0777): run chmod go-w '
                           .. cache .. '/open', 1, true), out)
    sh('chmod 0755 ' .. cache .. '/open && chmod 0775 ' .. cache)
    out = load('open', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find("error: fused.ext.load: option 'cache_dir': " .. cache .. ' is '
                           .. 'writable by group (mode 0775)', 1, true), out)
    sh('chmod 0700 ' .. cache)
    -- a library in it that others may write
    local so = one(cache .. '/open/libopen-*.so')
    sh('chmod 0646 ' .. so)
    out = load('open', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find('error: fused.ext.load: refusing the cache: ' .. so .. ' is writable '
                           .. 'by others (mode 0646)', 1, true), out)
    sh('chmod 0600 ' .. so)
    assert.truthy(load('open', 'v1.c', ('%q'):format(cache)):find('value 1\n', 1, true))
  end)

  it('refuses a folder above the cache that others may write without the sticky bit', function()
    local above = dir .. '/shared'
    sh('mkdir -p ' .. above .. ' && chmod 0777 ' .. above)
    local out = load('above', 'v1.c', ('%q'):format(above .. '/cache'))
    assert.truthy(out:find("error: fused.ext.load: option 'cache_dir': " .. above .. ', a folder '
                           .. 'above the cache, is writable by others without the sticky bit '
                           .. '(mode 0777)', 1, true), out)
    sh('chmod 1777 ' .. above) -- as /tmp: nobody else can rename what it holds
    out = load('above', 'v1.c', ('%q'):format(above .. '/cache'))
    assert.truthy(out:find('value 1\n', 1, true), out)
  end)

  it('refuses a cache folder or a file in it owned by another user', function()
    if sh('id -u'):match('%d+') ~= '0' then
      pending('needs root to give a folder to nobody')
      return
    end
    local cache = dir .. '/owner'
    assert.truthy(load('owner', 'v1.c', ('%q'):format(cache)):find('value 1\n', 1, true))
    sh('chown nobody ' .. cache .. '/owner')
    local out = load('owner', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find("error: fused.ext.load: option 'cache_dir': " .. cache .. '/owner is '
                           .. 'owned by another user (uid ', 1, true), out)
    sh('chown root ' .. cache .. '/owner')
    local so = one(cache .. '/owner/libowner-*.so')
    sh('chown nobody ' .. so .. '.record')
    out = load('owner', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find('error: fused.ext.load: refusing the cache: ' .. so .. '.record is '
                           .. 'owned by another user', 1, true), out)
  end)

  it('refuses a symlink planted in the cache, for a library and for the folder', function()
    local cache = dir .. '/link'
    assert.truthy(load('link', 'v1.c', ('%q'):format(cache)):find('value 1\n', 1, true))
    local so = one(cache .. '/link/liblink-*.so')
    sh(string.format('cp %s %s/copy.so && ln -sf %s/copy.so %s', so, dir, dir, so))
    local out = load('link', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find('error: fused.ext.load: refusing the cache: ' .. so .. ' is a symlink, '
                           .. 'not a file', 1, true), out)
    sh(string.format('mv %s/link %s/elsewhere && ln -s %s/elsewhere %s/link', cache, dir, dir, cache))
    out = load('link', 'v1.c', ('%q'):format(cache))
    assert.truthy(out:find("error: fused.ext.load: option 'cache_dir': " .. cache .. '/link is a '
                           .. 'symlink, not a folder', 1, true), out)
  end)

  it("refuses a symlink put in place of fused.cell's generated source", function()
    local cache = dir .. '/cellsrc'
    local code = string.format([[
      local F = require('fused').cell
      local ok, e = pcall(F.define, {name = 'linked', gates = 1, state = 'h', cache_dir = %q,
                                     step = function(gx, gh, h) return F.tanh(gx[1] + gh[1]) * h end})
      print(ok and 'defined' or 'error: ' .. e)]], cache)
    local first = luajit(code)
    assert.truthy(first:find('defined', 1, true), first)
    local c = one(cache .. '/linked/linked-*.c')
    sh(string.format('cp %s %s/same.c && ln -sf %s/same.c %s', c, dir, dir, c)) -- the same text
    local out = luajit(code)
    assert.truthy(out:find('refusing the cache: ' .. c .. ' is a symlink, not a file', 1, true), out)
  end)

  it('reads from a dependency record no device, FIFO or huge file, and compiles again', function()
    local cache = dir .. '/deps'
    write(src .. 'd.h', '#define D 4\n')
    write(src .. 'd.c', '#include "d.h"\nint ext_v(void) { return D; }\n')
    assert.truthy(load('deps', 'd.c', ('%q'):format(cache)):find('value 4\n', 1, true))
    local record = one(cache .. '/deps/d.c-*.deps')
    sh(string.format('mkfifo %s/fifo && truncate -s 100M %s/huge', dir, dir))
    for _, case in ipairs({ { '/dev/zero', 'not a regular file (a character device)' },
                            { dir .. '/fifo', 'not a regular file (a FIFO)' },
                            { dir .. '/huge', 'larger than 67108864 bytes (104857600)' } }) do
      write(record, case[1] .. '\n')
      local out = load('deps', 'd.c', ('%q'):format(cache))
      assert.truthy(out:find('value 4\n', 1, true), out)
      assert.truthy(out:find(record .. ' names ' .. case[1] .. ': ' .. case[2] .. ': compiling '
                             .. 'again', 1, true), out)
      -- the new record names what the compiler read
      assert.are.equal(src .. 'd.h', io.open(record):read('*a'))
    end
    write(record, string.rep(src .. 'd.h\n', 100000)) -- past the record's bound
    local out = load('deps', 'd.c', ('%q'):format(cache))
    assert.truthy(out:find('refusing the cache: ' .. record .. ': larger than 1048576 bytes', 1, true), out)
  end)

  it("takes a relative cache_dir beginning with -o as a folder, never a compiler's option", function()
    local cwd = dir .. '/cwd'
    sh('mkdir -p ' .. cwd)
    local out = luajit(string.format([[
      local ext = require('fused').ext.load{name = 'opt', sources = {%q}, cache_dir = '-oevil',
                                            cdef = 'int ext_v(void);'}
      print('value ' .. ext.ext_v())]], src .. 'v1.c'), nil, cwd)
    assert.truthy(out:find('value 1\n', 1, true), out)
    assert.truthy(one(cwd .. '/-oevil/opt/libopt-*.so'), sh('ls -R ' .. cwd))
    assert.are.equal('-oevil\n', sh('ls ' .. cwd)) -- no file 'evil...' beside it
  end)

  it("takes cache_dir = '' as the default, and refuses other odd values naming cache_dir", function()
    local home = dir .. '/home'
    sh('mkdir -p ' .. home)
    local out = luajit(string.format([[
      local ext = require('fused').ext.load{name = 'ext_cache_empty_dir', sources = {%q},
                                            cache_dir = '', cdef = 'int ext_v(void);'}
      print('value ' .. ext.ext_v())
      print('root ' .. require('fused').ext.cache_root{cache_dir = ''})]], src .. 'v1.c'),
      'env -u FUSED_EXT_CACHE -u XDG_CACHE_HOME HOME=' .. home)
    os.execute('rm -rf /ext_cache_empty_dir') -- where it went before
    assert.truthy(out:find('value 1\n', 1, true), out)
    assert.truthy(out:find('root ' .. home .. '/.cache/fused/ext\n', 1, true), out)
    assert.truthy(one(home .. '/.cache/fused/ext/ext_cache_empty_dir/libext_cache_empty_dir-*.so'))
    assert.has_error(function()
      fused.ext.load { name = 'x', sources = { src .. 'v1.c' }, cache_dir = 5 }
    end, "fused.ext.load: option 'cache_dir' expected a folder's name, got number")
    assert.has_error(function()
      fused.ext.load { name = 'x', sources = { src .. 'v1.c' }, cache_dir = 'a\0b' }
    end, "fused.ext.load: option 'cache_dir' expected a folder's name, got a string with a NUL byte")
    assert.has_error(function()
      fused.ext.load { name = 'x', sources = { src .. 'v1.c' }, cache_dir = src .. 'v1.c' }
    end, "fused.ext.load: option 'cache_dir': " .. src .. 'v1.c is a regular file, not a folder')
    assert.has_error(function()
      fused.cell.define { name = 'x', gates = 1, state = 'h', cache_dir = true,
                          step = function(gx, gh, h) return gx[1] + gh[1] + h end }
    end, "fused.cell.define: option 'cache_dir' expected a folder's name, got boolean")
    assert.has_error(function() fused.ext.cache_root { cache_dir = {} } end,
      "fused.ext.cache_root: option 'cache_dir' expected a folder's name, got table")
  end)

  it('passes shell metacharacters in cache_dir, sources and flags as text, never as code', function()
    local odd = dir .. "/$(touch PWNED1) `touch PWNED2`; touch PWNED3 'q' \"d\" x"
    sh('mkdir -p ' .. quote(odd))
    local out = luajit(string.format([[
      local ffi = require 'ffi'
      local f = io.open(%q, 'wb')
      f:write('#define S(x) #x\n#define XS(x) S(x)\nconst char *ext_s(void) { return XS(V); }\n')
      f:close()
      local ext = require('fused').ext.load{name = 'meta', sources = {%q}, cache_dir = %q,
        cflags = {'-DV=$(touch PWNED4);`touch PWNED5`', '-I' .. %q}, cdef = 'const char *ext_s(void);'}
      print('value ' .. ffi.string(ext.ext_s()))]], odd .. '/m.c', odd .. '/m.c', odd .. '/cache', odd),
      nil, dir)
    assert.truthy(out:find('value $(touch PWNED4);`touch PWNED5`\n', 1, true), out)
    assert.are.equal('', sh(string.format('find %s %s -name "PWNED*"', dir, root)))
    assert.has_error(function()
      fused.ext.load { name = 'x', sources = { src .. 'v1.c' }, cflags = { '-DA\0; touch PWNED' } }
    end, "fused.ext.load: option 'cflags' expected strings, got a string with a NUL byte at 1")
    -- a newline: no shell is fooled, but the compiler's -MMD list cannot hold one
    assert.has_error(function()
      fused.ext.load { name = 'x', sources = { src .. 'v1.c' }, cache_dir = dir .. '/a\n$(touch PWNED)' }
    end, "fused.ext.load: option 'cache_dir' expected a folder's name, got a name with a newline")
    assert.has_error(function()
      fused.ext.load { name = 'x', sources = { src .. 'a\nb.c' }, cache_dir = dir .. '/nl' }
    end, 'fused.ext.load: source "' .. src .. 'a\\\nb.c": a name with a newline cannot be built '
      .. "(the compiler's list of the files it read cannot hold one)")
  end)

  it('lets four processes build the same extension at once, each loading a whole library', function()
    local cache = ('%q'):format(dir .. '/race')
    local code = string.format([[
      local ext = require('fused').ext.load{name = 'race', sources = {%q}, cache_dir = %s,
                                            cdef = 'int ext_v(void);'}
      print('value ' .. ext.ext_v())]], src .. 'v1.c', cache)
    local cmd = string.format("cd %s && export %s LUA_PATH='%s/lua/?.lua;%s/lua/?/init.lua;;'; (",
                              root, libraries, root, root)
    for i = 1, 4 do cmd = cmd .. string.format('luajit -e %s > %s/race%d.out 2>&1 & ', quote(code), dir, i) end
    assert.are.equal(0, os.execute(cmd .. 'wait)'))
    for i = 1, 4 do
      local out = io.open(string.format('%s/race%d.out', dir, i)):read('*a')
      assert.are.equal('value 1\n', out)
    end
    local files = sh('ls ' .. dir .. '/race/race')
    assert.is_nil(files:find('tmp', 1, true), files)
    local again = load('race', 'v1.c', cache)
    assert.truthy(again:find('value 1\n', 1, true), again)
    assert.is_nil(again:find('compiling', 1, true), again)
    assert.is_nil(again:find('linking', 1, true), again)
  end)
end)
