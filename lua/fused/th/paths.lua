-- Torch7's `paths` package inside `fused th`: file names and folders (dirname, basename,
-- extname, concat, filep, dirp, mkdir, rmdir, rmall, cwd, home, dir, files, iterdirs,
-- iterfiles, thisfile, dofile, require, tmpname, uname), over Lua's io and os, getcwd, and
-- the shell's mkdir and ls where Lua has none.
local ffi = require 'ffi'
local blame = require 'fused.blame'

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

-- paths.concat(a, b, ...): the full name of a relative to the current folder, then of each
-- next part relative to the last ('.' and '..' resolved, an absolute part restarting), as
-- Torch7's; with no argument the current folder.
function paths.concat(...)
  local parts = {}
  local function walk(name)
    if name:sub(1, 1) == '/' then parts = {} end
    for part in name:gmatch('[^/]+') do
      if part == '..' then parts[#parts] = nil elseif part ~= '.' then parts[#parts + 1] = part end
    end
  end
  walk(paths.cwd())
  for i = 1, select('#', ...) do
    local part = select(i, ...)
    if type(part) ~= 'string' then blame(string.format("paths.concat: argument %d expected a string, got %s", i, type(part))) end
    walk(part)
  end
  return '/' .. table.concat(parts, '/')
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

pcall(ffi.cdef, 'char *getcwd(char *buf, size_t size);') -- declared elsewhere too
local cwd_buffer = ffi.new('char[4096]')
function paths.cwd() return ffi.C.getcwd(cwd_buffer, 4096) ~= nil and ffi.string(cwd_buffer) or '.' end
paths.home = os.getenv('HOME') or '.'
function paths.tmpname() return os.tmpname() end
function paths.uname() return 'Linux' end
function paths.is_win() return false end
function paths.is_mac() return false end
function paths.execdir() return nil end

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
-- paths.files(path[, f]): an iterator over the names in a folder, those matching f (a Lua
-- pattern, or a function of the name) when given; iterdirs and iterfiles over its folders and
-- files ('.' and '..' left out).
function paths.files(path, f)
  if type(f) == 'string' then
    local pattern = f
    f = function(name) return name:find(pattern) ~= nil end
  elseif f ~= nil and type(f) ~= 'function' then
    blame("paths.files: argument 2 expected a pattern or a function, got " .. type(f))
  end
  local names, i = paths.dir(path) or {}, 0
  return function()
    repeat i = i + 1 until names[i] == nil or not f or f(names[i])
    return names[i]
  end
end
function paths.iterdirs(path)
  return paths.files(path, function(name)
    return name ~= '.' and name ~= '..' and paths.dirp(path .. '/' .. name)
  end)
end
function paths.iterfiles(path)
  return paths.files(path, function(name) return paths.filep(path .. '/' .. name) end)
end

-- paths.rmall(path, 'yes'): removes a file, or a folder and everything in it.
function paths.rmall(path, more)
  if more ~= 'yes' then return nil, "missing second argument ('yes')" end
  if paths.filep(path) then return os.remove(path) end
  if not paths.dirp(path) then return nil, 'not a file or directory', path end
  for name in paths.files(path) do
    if name ~= '.' and name ~= '..' then
      local ok, err = paths.rmall(path .. '/' .. name, more)
      if not ok then return nil, err, path .. '/' .. name end
    end
  end
  return paths.rmdir(path)
end

-- paths.thisfile([name]): the file of the code that calls it (or name beside it).
function paths.thisfile(name)
  local file = debug.getinfo(2, 'S').source:match('^@(.*)$')
  if not file then return name end
  file = paths.concat(file)
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
