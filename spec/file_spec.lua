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
                        "save: cannot replace '" .. path('a-directory') .. "': Is a directory")
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
