-- Files for saving and loading (c/core/file.c). Saving writes whole or not at all: a new file
-- in the target's directory, synced and renamed over it, so that neither a crash nor a power
-- loss leaves a half-written file at the path, and a writer killed mid-save leaves no
-- temporary file. A symlink at the path is followed (the file it points to is replaced), an
-- existing file keeps its mode (one the user may not write is refused), and FIFOs, devices and
-- directories are refused. Loading reads
-- a file in parts, straight into tensors' storage, never the whole file into one Lua string.
local ffi = require 'ffi'
local lib = require 'fused.lib'

local M = {}

-- One declaration per cdef: another module may have declared one of them already.
pcall(ffi.cdef, 'int access(const char *path, int mode);')
pcall(ffi.cdef, 'char *strerror(int errnum);')
pcall(ffi.cdef, 'char *realpath(const char *path, char *resolved);')
pcall(ffi.cdef, 'void free(void *p);')

-- Raises the C error under the public function's name fn (the message names the C one), at
-- `level` counted from here.
local function raise(fn, level)
  local message = ffi.string(lib.C.fused_last_error()):gsub('^[%w_]+: ', '')
  error(fn .. ': ' .. message, level)
end

local function check_path(fn, path)
  if type(path) ~= 'string' or path == '' or path:find('\0', 1, true) then -- C would stop at a NUL
    error(string.format("%s: argument 'path' expected a file name, got %s", fn, type(path) ~= 'string'
                        and type(path) or path == '' and 'an empty string' or 'a string with a NUL byte'), 4)
  end
end

-- Writes the chunks of `chunks` in order to path; errors name `fn` (the public function). A
-- chunk is a string, or { pointer, size, owner } for bytes in C memory (a tensor's storage,
-- written without a copy into a Lua string; owner, the tensor, keeps it alive).
function M.write_atomic(fn, path, chunks)
  check_path(fn, path)
  local n = #chunks
  local data, sizes = ffi.new('const char *[?]', n), ffi.new('size_t[?]', n)
  for i, chunk in ipairs(chunks) do
    if type(chunk) == 'string' then
      data[i - 1], sizes[i - 1] = chunk, #chunk -- chunks keeps them alive
    else
      data[i - 1], sizes[i - 1] = ffi.cast('const char *', chunk[1]), chunk[2]
    end
  end
  if lib.C.fused_write_file_atomic(path, data, sizes, n) ~= 0 then raise(fn, 4) end
end

-- A file open for reading: reader.size (bytes), reader:read(offset, n) (a string, for
-- headers), reader:read_into(pointer, offset, n), reader:close(). open refuses FIFOs, devices
-- and directories without blocking on them; errors read "fn: PATH: why".
local Reader = {}
Reader.__index = Reader

function M.open(fn, path)
  check_path(fn, path)
  local fd, size = ffi.new('int32_t[1]'), ffi.new('int64_t[1]')
  -- About the user's file, not a line of fused: no position (level 0).
  if lib.C.fused_file_open(path, fd, size) ~= 0 then raise(fn, 0) end
  -- ffi.gc closes the descriptor if an error leaves the reader behind.
  local handle = ffi.gc(ffi.new('int32_t[1]', fd[0]), function(h) lib.C.fused_file_close(h[0]) end)
  return setmetatable({ fn = fn, path = path, size = tonumber(size[0]), handle = handle }, Reader)
end

function Reader:read_into(pointer, offset, n)
  if lib.C.fused_file_read(self.handle[0], offset, pointer, n) ~= 0 then
    local message = ffi.string(lib.C.fused_last_error()):gsub('^[%w_]+: ', '')
    error(string.format('%s: %s: %s', self.fn, self.path, message), 0)
  end
end

function Reader:read(offset, n)
  local buffer = ffi.new('char[?]', math.max(n, 1))
  self:read_into(buffer, offset, n)
  return ffi.string(buffer, n)
end

function Reader:close()
  ffi.gc(self.handle, nil)
  lib.C.fused_file_close(self.handle[0])
end

-- The position (from 1) of the first of n bytes at pointer that is neither 0 nor 1, or nil:
-- a C bool holds 0 or 1, and a loaded bool tensor must too.
function M.first_non_bool(pointer, n)
  local bytes = ffi.cast('const uint8_t *', pointer)
  for i = 0, n - 1 do
    if bytes[i] > 1 then return i + 1 end
  end
end

-- The absolute path of path's directory, symlinks and '..' resolved, with path's last name
-- (which need not exist): two names of one file give one answer. nil when the directory
-- cannot be resolved.
function M.canonical(path)
  local dir, name = path:match('^(.*)/([^/]*)$')
  if not dir then dir, name = '.', path end
  local resolved = ffi.C.realpath(dir == '' and '/' or dir, nil)
  if resolved == nil then return nil end
  local text = ffi.string(resolved)
  ffi.C.free(resolved)
  return (text == '/' and '' or text) .. '/' .. name
end

-- What is at path when it is not a regular file ('a FIFO', 'a directory', ...), found without
-- blocking; nil for a regular file, nothing, or what cannot be opened to tell.
function M.not_regular(path)
  local fd, size = ffi.new('int32_t[1]'), ffi.new('int64_t[1]')
  if lib.C.fused_file_open(path, fd, size) == 0 then
    lib.C.fused_file_close(fd[0])
    return nil
  end
  return ffi.string(lib.C.fused_last_error()):match('not a regular file %((.-)%)$')
end

-- Whether something (a file, a directory, a FIFO, ...) is at path, found without opening it.
function M.exists(path) return ffi.C.access(path, 0) == 0 end -- F_OK

-- Whether a file can be created at path: its directory exists and may be written. Returns
-- true, or false and why not ("DIR: No such file or directory").
function M.can_create(path)
  local dir = path:match('^(.*)/[^/]*$') or '.'
  if dir == '' then dir = '/' end
  -- dir/. fails for a file that is not a directory; W_OK | X_OK: entries may be added.
  if ffi.C.access(dir .. '/.', 3) == 0 then return true end
  local errno = ffi.errno()
  return false, dir .. ': ' .. ffi.string(ffi.C.strerror(errno))
end

return M
