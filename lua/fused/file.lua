-- Writing files whole or not at all (fused_write_file_atomic in c/core/file.c): a temporary
-- file beside the target, synced and renamed over it, so that neither a crash nor a power loss
-- leaves a half-written file at the path.
local ffi = require 'ffi'
local lib = require 'fused.lib'

local M = {}

-- One declaration per cdef: another module may have declared one of them already.
pcall(ffi.cdef, 'int access(const char *path, int mode);')
pcall(ffi.cdef, 'char *strerror(int errnum);')

-- Writes the strings of `chunks` in order to path; errors name `fn` (the public function).
function M.write_atomic(fn, path, chunks)
  if type(path) ~= 'string' or path == '' or path:find('\0', 1, true) then -- C would stop at a NUL
    error(string.format("%s: argument 'path' expected a file name, got %s", fn, type(path) ~= 'string'
                        and type(path) or path == '' and 'an empty string' or 'a string with a NUL byte'), 3)
  end
  local n = #chunks
  local data, sizes = ffi.new('const char *[?]', n), ffi.new('size_t[?]', n)
  for i = 1, n do data[i - 1], sizes[i - 1] = chunks[i], #chunks[i] end -- chunks keeps them alive
  if lib.C.fused_write_file_atomic(path, data, sizes, n) ~= 0 then
    -- The message names the C function; the user called fn.
    local message = ffi.string(lib.C.fused_last_error()):gsub('^write_file_atomic: ', '')
    error(fn .. ': ' .. message, 3)
  end
end

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
