-- Building an extension in its cache folder (fused.ext.load): one object per source, keyed by
-- that source, the headers it included last time (its -MMD output), the flags and the
-- compiler's version; one library keyed by its objects. Each file is written under a
-- temporary name and renamed into place, so two processes may build at once and nobody loads
-- a half-written file; a library's name carries its key, so a process that loaded one version
-- loads a changed one under a new name (LuaJIT cannot unload a library). Beside each object and
-- library, a record (<file>.record, written after it) holds its key and the SHA-256 of its
-- contents: a file is reused only when both match, so one put there later, by hand or by
-- another program, is built again rather than run. Every file read from the cache passes
-- cache.lua's checks first.
local ffi = require 'ffi'
local hash = require 'fused.ext.hash'
local cache = require 'fused.ext.cache'

pcall(ffi.cdef, 'int getpid(void);')

local M = {}

-- For the shell, as one word: no character of s is special inside single quotes but the quote.
local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- A name no other process or call uses, beside path.
local serial = 0
local function temporary(path)
  serial = serial + 1
  return string.format('%s.tmp-%d-%d', path, ffi.C.getpid(), serial)
end

-- Renames the finished file tmp to path, yours alone (0600).
local function install(fn, tmp, path)
  local ok, why = cache.private(tmp) and os.rename(tmp, path)
  if not ok then
    os.remove(tmp)
    error(string.format('%s: cannot write %s: %s', fn, path, why or 'chmod failed'), 0)
  end
end

-- Writes text at path, as the builds are written: under a name of its own, renamed when whole
-- (over a symlink at path, never through it).
function M.write(fn, path, text)
  local tmp = temporary(path)
  local f = io.open(tmp, 'wb')
  local ok = f and f:write(text)
  if f then f:close() end
  if not ok then
    os.remove(tmp)
    error(string.format('%s: cannot write %s', fn, path), 0)
  end
  install(fn, tmp, path)
end

-- A file of the cache, read whole if at most limit bytes; nil if there is none; an error if it
-- cannot be trusted (cache.lua) or read.
local function read_cached(fn, path, limit)
  local why = cache.distrust_file(path)
  if why == 'missing' then return nil end
  if why then error(string.format('%s: refusing the cache: %s', fn, why), 0) end
  local text, err = hash.read(path, limit)
  if not text then error(string.format('%s: refusing the cache: %s: %s', fn, path, err), 0) end
  return text
end

-- The largest object or library digested (it is read in parts, not held).
local PRODUCT_LIMIT = 2 ^ 30

local RECORD = 'fused.ext record 1\nkey %s\nsha256 %s\n'

-- Whether the cached file at path was built for key and is as it was built: its record names
-- both. say(...) tells why not when it exists but differs.
local function intact(fn, path, key, say)
  local why = cache.distrust_file(path)
  if why == 'missing' then return false end
  if why then error(string.format('%s: refusing the cache: %s', fn, why), 0) end
  local record = read_cached(fn, path .. '.record', 4096)
  local k, digest = (record or ''):match('^fused%.ext record 1\nkey (%x+)\nsha256 (%x+)\n$')
  if k ~= key then
    say('%s %s: building it again', path, record and 'has a record of other sources'
        or 'has no record')
    return false
  end
  local actual, err = hash.file(path, PRODUCT_LIMIT)
  if actual and hash.hex(actual) == digest then return true end
  say('%s %s: building it again', path, actual and 'is not what was built' or err)
  return false
end

-- Renames the built file tmp to path and records key and its digest beside it.
local function seal(fn, tmp, path, key)
  local digest, why = hash.file(tmp, PRODUCT_LIMIT)
  if not digest then error(string.format('%s: cannot read what was built, %s: %s', fn, tmp, why), 0) end
  install(fn, tmp, path)
  M.write(fn, path .. '.record', RECORD:format(key, hash.hex(digest)))
end

-- Runs command; returns whether it succeeded and what it printed.
local function run(command)
  local p = io.popen(command .. ' 2>&1; echo "exit=$?"')
  local out = p:read('*a')
  p:close()
  local status = tonumber(out:match('exit=(%d+)%s*$'))
  return status == 0, (out:gsub('exit=%d+%s*$', ''))
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

-- The largest dependency record read, and the largest header digested.
local RECORD_LIMIT, HEADER_LIMIT = 2 ^ 20, 2 ^ 26

-- The object's key: the compile command, the source and the headers it read last time, as its
-- dependency record names them; nil when it must compile: before the first build, or when a
-- header named is gone or is what no build reads (not a regular file, or past HEADER_LIMIT:
-- a record edited to name /dev/zero or a FIFO), and then what is wrong.
local function object_key(fn, command, text, record)
  local h = hash.add(hash.add(nil, command), text)
  local deps = read_cached(fn, record, RECORD_LIMIT)
  if not deps then return nil end
  for dep in deps:gmatch('[^\n]+') do
    local digest, why = hash.file(dep, HEADER_LIMIT)
    if not digest then return nil, string.format('%s names %s: %s', record, dep, why) end
    h = hash.add(hash.add(h, dep), digest)
  end
  return hash.hex(h)
end

-- Compiles s = {path =, compiler =, flags =, version =, cached =} (cached: the source is in the
-- cache) into dir unless an intact object of its key is there; returns the object's path.
-- say(...) reports each step.
function M.object(fn, dir, s, say)
  local text, why
  if s.cached then
    text = read_cached(fn, s.path, HEADER_LIMIT)
  else
    text, why = hash.read(s.path, HEADER_LIMIT)
  end
  if not text then
    error(string.format("%s: source '%s' cannot be read: %s", fn, s.path, why or 'missing'), 4)
  end
  local base = s.path:match('([^/]*)$'):gsub('[^%w_.-]', '_')
  -- NULs between the words, so that {'-DA -DB'} and {'-DA', '-DB'} differ
  local command = table.concat({ s.compiler, s.version, unpack(s.flags) }, '\0')
  local record = string.format('%s/%s-%s.deps', dir, base, hash.hex(hash.add(nil, s.path)))
  local key, stale = object_key(fn, command, text, record)
  if stale then say('%s: compiling again', stale) end
  local obj = key and dir .. '/' .. base .. '-' .. key .. '.o'
  if obj and intact(fn, obj, key, say) then
    say('reusing %s (%s-%s.o)', s.path, base, key)
    return obj
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
  local rule, err = hash.read(tmp .. '.d', RECORD_LIMIT)
  os.remove(tmp .. '.d')
  if not rule then -- without it, an edited header would not rebuild the object
    os.remove(tmp .. '.o')
    error(string.format("%s: compiling %s: the compiler's list of the files it read: %s", fn,
                        s.path, err), 4)
  end
  M.write(fn, record, table.concat(parse_deps(rule, s.path), '\n'))
  key, stale = object_key(fn, command, text, record)
  if not key then
    os.remove(tmp .. '.o')
    error(string.format('%s: compiling %s: %s, which the cache cannot follow', fn, s.path, stale), 4)
  end
  obj = dir .. '/' .. base .. '-' .. key .. '.o'
  seal(fn, tmp .. '.o', obj, key)
  return obj
end

-- Links the objects into dir/lib<name>-<key>.so unless it is there, as it was built; returns
-- its path.
function M.library(fn, dir, name, objects, linker, link_flags, say)
  local h = hash.add(nil, linker)
  for _, f in ipairs(link_flags) do h = hash.add(h, f) end
  for _, obj in ipairs(objects) do h = hash.add(h, obj) end
  local key = hash.hex(h)
  local so = string.format('%s/lib%s-%s.so', dir, name, key)
  if intact(fn, so, key, say) then
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
  seal(fn, tmp, so, key)
  return so
end

return M
