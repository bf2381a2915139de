-- Building an extension in its cache folder (fused.ext.load): one object per source, keyed by
-- that source, the headers it included last time (its -MMD output), the flags and the
-- compiler's version; one library keyed by its objects. Each file is written under a
-- temporary name and renamed into place, so two processes may build at once and nobody loads
-- a half-written file; a library's name carries its key, so a process that loaded one version
-- loads a changed one under a new name (LuaJIT cannot unload a library).
local ffi = require 'ffi'
local hash = require 'fused.ext.hash'
local file = require 'fused.file'

pcall(ffi.cdef, 'int getpid(void);')
pcall(ffi.cdef, 'int access(const char *path, int mode);')

local M = {}

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function exists(path) return ffi.C.access(path, 0) == 0 end

-- A name no other process or call uses, beside path.
local serial = 0
local function temporary(path)
  serial = serial + 1
  return string.format('%s.tmp-%d-%d', path, ffi.C.getpid(), serial)
end

-- Writes text at path, as the builds are written: under a name of its own, renamed when whole.
function M.write(fn, path, text)
  local tmp = temporary(path)
  local f = io.open(tmp, 'wb')
  if not f or not f:write(text) then
    error(string.format('%s: cannot write %s', fn, path), 4)
  end
  f:close()
  assert(os.rename(tmp, path))
end

-- Runs command; returns whether it succeeded and what it printed.
local function run(command)
  local p = io.popen(command .. ' 2>&1; echo "exit=$?"')
  local out = p:read('*a')
  p:close()
  local status = tonumber(out:match('exit=(%d+)%s*$'))
  return status == 0, (out:gsub('exit=%d+%s*$', ''))
end

function M.mkdir(fn, dir)
  if exists(dir) then return end
  local ok, out = run('mkdir -p ' .. quote(dir))
  if not ok then error(string.format("%s: cannot create the cache folder %s: %s", fn, dir, out), 4) end
end

-- The target name of the -MMD rule: a fixed word, so that the rule's first ':' ends it.
local DEPS_TARGET = 'object'

-- The files a -MMD rule names besides the source itself. The compiler writes a space in a
-- name as '\ ', '#' as '\#' and '$' as '$$'; other characters (quotes) as they are.
local function parse_deps(text, source)
  local deps, word = {}, nil
  local rule = text:gsub('\\\n', ' '):gsub('^' .. DEPS_TARGET .. ':', '')
  local i = 1
  while i <= #rule do
    local c, nxt = rule:sub(i, i), rule:sub(i + 1, i + 1)
    if c == '\\' and (nxt == ' ' or nxt == '#') or c == '$' and nxt == '$' then
      word, i = (word or '') .. nxt, i + 2
    elseif c:match('%s') then
      if word and word ~= source then deps[#deps + 1] = word end
      word, i = nil, i + 1
    else
      word, i = (word or '') .. c, i + 1
    end
  end
  if word and word ~= source then deps[#deps + 1] = word end
  return deps
end

-- The object's key: the compile command, the source and the headers it read last time (the
-- record is missing before the first build: then the source compiles).
local function object_key(command, text, record)
  local h = hash.add(hash.add(nil, command), text)
  local deps = hash.read(record)
  if not deps then return nil end
  for dep in deps:gmatch('[^\n]+') do
    local content = hash.read(dep)
    if not content then return nil end -- a header gone: compile again
    h = hash.add(hash.add(h, dep), content)
  end
  return hash.hex(h)
end

-- Compiles s = {path =, compiler =, flags =} into dir unless an object of its key is there;
-- returns the object's path. say(...) reports each step.
function M.object(fn, dir, s, say)
  local text = hash.read(s.path)
  if not text then error(string.format("%s: source '%s' cannot be read", fn, s.path), 4) end
  local base = s.path:match('([^/]*)$'):gsub('[^%w_.-]', '_')
  local command = s.compiler .. '\0' .. s.version .. '\0' .. table.concat(s.flags, ' ')
  local record = string.format('%s/%s-%s.deps', dir, base, hash.hex(hash.add(nil, s.path)))
  local key = object_key(command, text, record)
  if key and exists(dir .. '/' .. base .. '-' .. key .. '.o') then
    say('reusing %s (%s-%s.o)', s.path, base, key)
    return dir .. '/' .. base .. '-' .. key .. '.o'
  end
  say('compiling %s', s.path)
  local tmp = temporary(dir .. '/' .. base)
  local flags = {}
  for i, f in ipairs(s.flags) do flags[i] = quote(f) end
  local ok, out = run(string.format('%s %s -MMD -MT %s -MF %s -c %s -o %s', s.compiler,
                                    table.concat(flags, ' '), DEPS_TARGET, quote(tmp .. '.d'),
                                    quote(s.path), quote(tmp .. '.o')))
  if not ok then
    os.remove(tmp .. '.o'); os.remove(tmp .. '.d')
    error(string.format("%s: compiling %s failed:\n%s", fn, s.path, out), 4)
  end
  if out ~= '' then say('%s', out) end
  local deps = parse_deps(hash.read(tmp .. '.d') or '', s.path)
  os.remove(tmp .. '.d')
  file.write_atomic(fn, record, { table.concat(deps, '\n') })
  key = object_key(command, text, record)
  local obj = dir .. '/' .. base .. '-' .. key .. '.o'
  assert(os.rename(tmp .. '.o', obj))
  return obj
end

-- Links the objects into dir/lib<name>-<key>.so unless it is there; returns its path.
function M.library(fn, dir, name, objects, linker, link_flags, say)
  local h = hash.add(hash.add(nil, linker), table.concat(link_flags, ' '))
  for _, obj in ipairs(objects) do h = hash.add(h, obj) end
  local so = string.format('%s/lib%s-%s.so', dir, name, hash.hex(h))
  if exists(so) then
    say('reusing %s', so)
    return so
  end
  say('linking %s', so)
  local tmp = temporary(so)
  local args = {}
  for i, f in ipairs(objects) do args[i] = quote(f) end
  for _, f in ipairs(link_flags) do args[#args + 1] = quote(f) end
  local ok, out = run(string.format('%s -shared -o %s %s', linker, quote(tmp), table.concat(args, ' ')))
  if not ok then
    os.remove(tmp)
    error(string.format("%s: linking %s failed:\n%s", fn, name, out), 4)
  end
  assert(os.rename(tmp, so))
  return so
end

return M
