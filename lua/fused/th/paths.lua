-- Torch7's `paths` package inside `fused th`: file names and folders (dirname, basename,
-- concat, filep, dirp, mkdir, rmdir, cwd, home, files, dir, thisfile, dofile, require,
-- tmpname), over Lua's io and os and the shell's mkdir/ls where Lua has none.
local paths = {}

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- paths.dirname('a/b/c.lua') 'a/b'; paths.basename('a/b/c.lua'[, '.lua']) 'c.lua' ('c').
function paths.dirname(path)
  local dir = path:gsub('/+$', ''):match('^(.*)/[^/]*$')
  if dir == nil then return '.' end
  return dir == '' and '/' or dir
end
function paths.basename(path, ext)
  local base = path:gsub('/+$', ''):match('([^/]*)$')
  if ext then
    ext = ext:gsub('^%.', '')
    local stem = base:match('^(.*)%.' .. ext:gsub('%p', '%%%0') .. '$')
    if stem then base = stem end
  end
  return base
end
function paths.extname(path) return path:match('%.([^./]+)$') end

-- paths.concat(a, b, ...): the parts joined by '/', an absolute part restarting; with no
-- argument the current folder.
function paths.concat(...)
  local n = select('#', ...)
  if n == 0 then return paths.cwd() end
  local path
  for i = 1, n do
    local part = select(i, ...)
    if type(part) ~= 'string' then error(string.format("paths.concat: argument %d expected a string, got %s", i, type(part)), 2) end
    if path == nil or part:sub(1, 1) == '/' then path = part
    elseif part ~= '' then path = path:gsub('/+$', '') .. '/' .. part end
  end
  return path
end

local function exists(path, what)
  local f = io.open(path, 'r')
  if not f then return false end
  local _, _, code = f:read(0) -- a folder opens but reads with EISDIR (21)
  f:close()
  local is_dir = code == 21
  return what == 'dir' and is_dir or what == 'file' and not is_dir
end
function paths.filep(path) return type(path) == 'string' and exists(path, 'file') end
function paths.dirp(path) return type(path) == 'string' and exists(path, 'dir') end

function paths.cwd() return os.getenv('PWD') or io.popen('pwd'):read('*l') end
function paths.home() return os.getenv('HOME') end
function paths.tmpname() return os.tmpname() end

-- paths.mkdir(path): true once the folder exists (its parent must); paths.rmdir(path) an empty one.
function paths.mkdir(path)
  if paths.dirp(path) then return true end
  os.execute('mkdir ' .. quote(path) .. ' 2>/dev/null')
  return paths.dirp(path)
end
function paths.rmdir(path) return os.remove(path) ~= nil end

-- paths.dir(path): the names in a folder, '.' and '..' included, as Torch7's; nil if none.
function paths.dir(path)
  if not paths.dirp(path) then return nil end
  local names, ls = { '.', '..' }, io.popen('ls -A ' .. quote(path))
  for name in ls:lines() do names[#names + 1] = name end
  ls:close()
  return names
end
-- paths.files(path[, pattern]): an iterator over the names (matching the Lua pattern).
function paths.files(path, pattern)
  local names, i = paths.dir(path) or {}, 0
  return function()
    repeat i = i + 1 until names[i] == nil or not pattern or names[i]:find(pattern)
    return names[i]
  end
end

-- paths.thisfile([name]): the file of the code that calls it (or name beside it).
function paths.thisfile(name)
  local source = debug.getinfo(2, 'S').source
  local file = source:match('^@(.*)$')
  if not file then return nil end
  if name then return paths.concat(paths.dirname(file), name) end
  return file
end

-- paths.dofile(name): runs the file name beside the caller's file.
function paths.dofile(name, ...)
  local source = debug.getinfo(2, 'S').source:match('^@(.*)$')
  local path = source and paths.concat(paths.dirname(source), name) or name
  return dofile(path, ...)
end

function paths.require(name) return require(name) end

return paths
