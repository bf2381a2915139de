-- fused.file.write_atomic, under npy and safetensors saving: a reader sees the old file or the
-- new one, never a mix; writers never share a temporary file; failures leave no temporary
-- file and the old file whole, and say which public function and path failed.
local helper = require 'spec.helper'
local file = require 'fused.file'

local dir = os.tmpname()
os.remove(dir)
assert(os.execute('mkdir -p ' .. dir .. '/files') == 0)
local function path(name) return dir .. '/files/' .. name end

local function read(p)
  local f = io.open(p, 'rb')
  if not f then return nil end
  local s = f:read('*a')
  f:close()
  return s
end

-- The names in dir/files, sorted.
local function listing()
  local names = {}
  for name in io.popen('ls -A ' .. dir .. '/files'):lines() do names[#names + 1] = name end
  table.sort(names)
  return names
end

-- A command that runs `code` in a child luajit.
local function luajit(name, code)
  local f = assert(io.open(dir .. '/' .. name .. '.lua', 'wb'))
  f:write(code)
  f:close()
  return 'luajit ' .. dir .. '/' .. name .. '.lua'
end

local SIZE = 2 ^ 18

describe('fused.file.write_atomic', function()
  teardown(function() os.execute('rm -rf ' .. dir) end)

  it('gives a reader the old file or the new one while two processes write it', function()
    local p = path('shared.bin')
    file.write_atomic('save', p, { string.rep('a', SIZE) })
    -- Both writers start with the same Lua random state, as any two processes do.
    local write = luajit('write', string.format([[
      local letter = arg[1]
      for _ = 1, 100 do require('fused.file').write_atomic('save', %q, { string.rep(letter, %d) }) end
    ]], p, SIZE))
    local check = luajit('read', string.format([[
      for _ = 1, 300 do
        local f = io.open(%q, 'rb')
        local s = f:read('*a')
        f:close()
        assert(s == string.rep('a', %d) or s == string.rep('b', %d), 'a mixed file of ' .. #s .. ' bytes')
      end
    ]], p, SIZE, SIZE))
    local status = os.execute(string.format('%s a & a=$!; %s b & b=$!; %s; r=$?; wait $a; a=$?; '
                                            .. 'wait $b; b=$?; [ $r$a$b = 000 ]', write, write, check))
    assert.are.equal(0, status)
    local s = read(p)
    assert(s == string.rep('a', SIZE) or s == string.rep('b', SIZE))
    assert.are.same({ 'shared.bin' }, listing())
    os.remove(p)
  end)

  it('leaves the old file whole and no temporary file when a write fails', function()
    local p = path('old.bin')
    file.write_atomic('save', p, { 'old' })
    os.execute('mkdir ' .. path('a-directory'))
    helper.assert_error(function() file.write_atomic('save', path('missing/x.bin'), { 'new' }) end,
                        "save: cannot write '" .. path('missing/x.bin') .. "': No such file or directory")
    helper.assert_error(function() file.write_atomic('save_npy', path('old.bin/x.bin'), { 'new' }) end,
                        "save_npy: cannot write '" .. path('old.bin/x.bin') .. "': Not a directory")
    helper.assert_error(function() file.write_atomic('save', path('a-directory'), { 'new' }) end,
                        "save: cannot write '" .. path('a-directory') .. "': not a regular file (a directory)")
    helper.assert_error(function() file.write_atomic('save', path('old.bin') .. '\0.x', { 'new' }) end,
                        "save: argument 'path' expected a file name, got a string with a NUL byte")
    helper.assert_error(function() file.write_atomic('save', '', { 'new' }) end,
                        "save: argument 'path' expected a file name, got an empty string")
    -- A write that runs out of room: a file-size limit of 4 KiB, SIGXFSZ ignored so write fails.
    local too_big = luajit('too_big', string.format(
      "require('fused.file').write_atomic('save', %q, { 'new', string.rep('x', 2 ^ 16) })", p))
    local status = os.execute(string.format("trap '' XFSZ; ulimit -f 4; %s 2> %s/err.txt", too_big, dir))
    assert.are_not.equal(0, status)
    local err = read(dir .. '/err.txt')
    assert.is_truthy(err:find("save: cannot write '" .. p .. "': File too large", 1, true), err)
    assert.are.equal('old', read(p))
    assert.are.same({ 'a-directory', 'old.bin' }, listing())
  end)
end)

-- Saving and loading through what is not a plain file at the path.
describe('fused.save and fused.load at special paths', function()
  local fused = require 'fused'
  local function shell(command) return (io.popen(command):read('*a'):gsub('\n$', '')) end

  it('refuse FIFOs and directories, naming the function and the path, and never block', function()
    os.execute('mkdir -p ' .. path('special') .. ' && mkfifo ' .. path('special/fifo'))
    local fifo, folder = path('special/fifo'), path('special')
    -- In a child with a time limit: a reader blocked on the FIFO would hang this run.
    local loads = luajit('fifo', string.format([[
      local fused = require 'fused'
      for _, load in ipairs({ 'load', 'load_npy' }) do
        for _, p in ipairs({ %q, %q }) do print((select(2, pcall(fused[load], p)))) end
      end
    ]], fifo, folder))
    assert.are.equal(table.concat({
      'load: ' .. fifo .. ': not a regular file (a FIFO)',
      'load: ' .. folder .. ': not a regular file (a directory)',
      'load_npy: ' .. fifo .. ': not a regular file (a FIFO)',
      'load_npy: ' .. folder .. ': not a regular file (a directory)' }, '\n'),
      shell('timeout 20 ' .. loads .. ' 2>&1'))
    local t = fused.ones({ 2 })
    helper.assert_error(function() fused.save_npy(fifo, t) end,
                        "save_npy: cannot write '" .. fifo .. "': not a regular file (a FIFO)")
    helper.assert_error(function() fused.save(folder, { t = t }) end,
                        "save: cannot write '" .. folder .. "': not a regular file (a directory)")
    assert.are.equal('fifo', shell('stat -c %F ' .. fifo))
    assert.are.same({ 'fifo' }, { shell('ls -A ' .. folder) })
    os.execute('rm -r ' .. folder)
  end)

  it("keep an existing file's mode", function()
    local p = path('private.npy')
    fused.save_npy(p, fused.ones({ 2 }))
    os.execute('chmod 600 ' .. p)
    fused.save_npy(p, fused.zeros({ 3 }))
    assert.are.equal('600', shell('stat -c %a ' .. p))
    assert.are.same({ 0, 0, 0 }, fused.load_npy(p):totable())
    os.remove(p)
  end)

  -- A rename needs only the directory's permission: a checkpoint made read-only to keep it
  -- was replaced, where open (io.open, torch.save) refuses it. Root may write anything: the
  -- child runs as nobody there.
  it('refuse a file the user may not write, keeping it', function()
    local as_user = ''
    if shell('id -u') == '0' then
      if shell('command -v setpriv') == '' then return pending('root without setpriv') end
      as_user = 'setpriv --reuid=65534 --regid=65534 --clear-groups '
    end
    local folder = dir .. '/readonly'
    os.execute('mkdir -p ' .. folder .. ' && chmod 777 ' .. folder)
    local p = folder .. '/kept.safetensors'
    fused.save(p, { w = fused.ones({ 2 }) })
    os.execute('chmod 444 ' .. p)
    local save = luajit('readonly', string.format([[
      local fused = require 'fused'
      local ok, err = pcall(fused.save, %q, { w = fused.zeros({ 3 }) })
      io.write(tostring(ok), ' ', tostring(err))
    ]], p))
    if as_user ~= '' then
      -- nobody may not read this checkout (a clone in a private folder): it runs a copy of
      -- fused's Lua and of the library this process loaded, in a folder anyone may read.
      local tree = dir .. '/tree'
      os.execute(string.format("mkdir -p %s/build && cp -r lua %s/ && cp '%s' %s/build/libfused.so "
                               .. '&& chmod -R a+rX %s', tree, tree, require('fused.lib').path, tree, tree))
      as_user = string.format("cd %s && %senv FUSED_NO_CUDA=1 FUSED_LIB=%s/build/libfused.so "
                              .. "LUA_PATH='%s/lua/?.lua;%s/lua/?/init.lua;;' ", tree, as_user, tree,
                              tree, tree)
    end
    local out = shell(as_user .. save .. ' 2>&1')
    assert.are.equal('false save: cannot write ' .. "'" .. p .. "'" .. ': Permission denied', out)
    assert.are.same({ 1, 1 }, fused.load(p).w:totable())
    os.execute('rm -r ' .. folder)
  end)

  it('follow a symlink: the file it points to is replaced, in its own directory', function()
    os.execute('mkdir -p ' .. dir .. '/elsewhere')
    local real, link = dir .. '/elsewhere/real.safetensors', path('link.safetensors')
    fused.save(real, { a = fused.ones({ 2 }) })
    os.execute('ln -s ../elsewhere/real.safetensors ' .. link)
    fused.save(link, { a = fused.zeros({ 2 }) })
    assert.are.equal(0, os.execute('test -L ' .. link))
    assert.are.same({ 0, 0 }, fused.load(real).a:totable())
    assert.are.same({ 'real.safetensors' }, { shell('ls -A ' .. dir .. '/elsewhere') })
    -- A dangling link names the file to create.
    local dangling = path('dangling.npy')
    os.execute('ln -s ../elsewhere/new.npy ' .. dangling)
    fused.save_npy(dangling, fused.ones({ 1 }))
    assert.are.same({ 1 }, fused.load_npy(dir .. '/elsewhere/new.npy'):totable())
    os.execute('rm -r ' .. dir .. '/elsewhere ' .. link .. ' ' .. dangling)
  end)
end)

describe('a save killed mid-write', function()
  it('leaves no temporary file', function()
    os.execute('mkdir -p ' .. path('killed'))
    local p = path('killed/big.npy')
    -- 128 MB: the kill lands while a save is writing or syncing.
    local save = luajit('big', string.format([[
      local fused = require 'fused'
      local t = fused.zeros({ 16 * 2 ^ 20 }, { dtype = 'float64' })
      while true do fused.save_npy(%q, t) end
    ]], p))
    os.execute('(' .. save .. ' & pid=$!; sleep 1; kill -9 $pid; wait $pid) 2> /dev/null')
    -- A kill between linkat and rename (microseconds) leaves a named temporary of a dead
    -- writer, which the next save in the directory removes: after one, nothing but files.
    helper.fused.save_npy(path('killed/after.npy'), helper.fused.ones({ 1 }))
    local names = {}
    for name in io.popen('ls -A ' .. path('killed')):lines() do
      if name ~= 'after.npy' then names[#names + 1] = name end
    end
    assert.is_true(#names == 0 or #names == 1 and names[1] == 'big.npy', table.concat(names, ' '))
    os.execute('rm -r ' .. path('killed'))
  end)

  it("leaves named temporaries that the next save in the directory removes, once their writer is dead", function()
    os.execute('mkdir -p ' .. path('stale'))
    local child = io.popen('echo $$')
    local dead = child:read('*n')
    child:close() -- reaped: kill(dead, 0) says ESRCH
    local stale = path('stale/other.npy.fused-tmp-' .. dead .. '-0123456789abcdef')
    local alive = path('stale/other.npy.fused-tmp-1-0123456789abcdef') -- pid 1 never dies
    local unrelated = path('stale/notes.fused-tmp-' .. dead .. '-x')
    for _, p in ipairs({ stale, alive, unrelated }) do assert(io.open(p, 'wb')):close() end
    file.write_atomic('save', path('stale/x.npy'), { 'new' })
    local names = {}
    for name in io.popen('ls -A ' .. path('stale')):lines() do names[#names + 1] = name end
    table.sort(names)
    assert.are.same({ 'notes.fused-tmp-' .. dead .. '-x', 'other.npy.fused-tmp-1-0123456789abcdef', 'x.npy' }, names)
    os.execute('rm -r ' .. path('stale'))
  end)
end)

describe('loading', function()
  local fused, ffi = require 'fused', require 'ffi'
  it('reads the data into the tensor, not through a Lua string of the file', function()
    local t = fused.randn({ 2 ^ 20 }, { dtype = 'float64' }) -- 8 MiB
    fused.save_npy(path('big.npy'), t)
    fused.save(path('big.safetensors'), { t = t })
    for _, load in ipairs({ function() return fused.load_npy(path('big.npy')) end,
                            function() return fused.load(path('big.safetensors')).t end }) do
      collectgarbage('collect')
      collectgarbage('stop')
      local before = collectgarbage('count')
      local loaded = load()
      local grown = collectgarbage('count') - before
      collectgarbage('restart')
      assert.is_true(grown < 1024, string.format('the Lua heap grew by %.0f KiB', grown))
      local a, b = ffi.cast('double *', loaded.data), ffi.cast('double *', t.data)
      for i = 0, t:numel() - 1 do assert(a[i] == b[i], 'element ' .. i) end
    end
    os.remove(path('big.npy'))
    os.remove(path('big.safetensors'))
  end)
end)
