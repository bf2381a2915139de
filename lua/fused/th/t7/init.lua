-- torch.save, torch.load, torch.serialize, torch.deserialize, torch.DiskFile and
-- torch.MemoryFile: any Lua value in Torch7's .t7 format ('binary', the default of save and
-- load, or 'ascii'), which torch7 and its readers (python-torchfile, PyTorch's legacy
-- load_lua) read and wrote. Saving writes the whole file or nothing (fused.file); loading
-- reads the file in blocks and trusts nothing in it.
local file = require 'fused.file'
local stream = require 'fused.th.t7.stream'
local files = require 'fused.th.t7.files'

local M = { DiskFile = files.DiskFile, MemoryFile = files.MemoryFile }

local function quoted(v) return type(v) == 'string' and "'" .. v .. "'" or tostring(v) end

-- The format and the long's size for a format argument; load also takes 'b64' (binary) and
-- 'b32' (binary from 32-bit Torch7, whose longs were 4 bytes). Called by the public functions
-- (errors at their caller's line), as check_referenced.
local function parse_format(fn, format, loading)
  if format == nil or format == 'binary' or format == 'b64' and loading then return 'binary', 8 end
  if format == 'b32' and loading then return 'binary', 4 end
  if format == 'ascii' then return 'ascii', 8 end
  error(string.format("%s: argument 'format' expected %s, got %s", fn,
                      loading and "'binary', 'ascii', 'b64' or 'b32'" or "'binary' or 'ascii'", quoted(format)), 3)
end

local function check_referenced(fn, referenced)
  if referenced ~= nil and type(referenced) ~= 'boolean' then
    error(string.format("%s: argument 'referenced' expected true or false, got %s", fn, quoted(referenced)), 3)
  end
end

-- A file being written with one object; errors name fn.
local function written(fn, object, format, referenced)
  local f = files.new(fn, '')
  f.object_name = fn
  f[format](f)
  f:referenced(referenced)
  return f:writeObject(object)
end

-- The one object of src (a stream); errors read "fn: where: at byte N: why".
local function decode(fn, where, src, format, long_size, referenced)
  local f = files.new(fn, where, src)
  f.long_size = long_size
  f[format](f)
  f:referenced(referenced)
  local value = f:readObject()
  if src:remaining() > 0 then f:reader().fail('%d bytes after the value', src:remaining()) end
  return value
end

-- torch.save(path, object[, format[, referenced]])
function M.save(path, object, format, referenced)
  format = parse_format('torch.save', format, false)
  check_referenced('torch.save', referenced)
  local f = written('torch.save', object, format, referenced)
  f.w.e:flush()
  file.write_atomic('torch.save', path, f.chunks)
end

-- torch.load(path[, format[, referenced]])
function M.load(path, format, referenced)
  local long_size
  format, long_size = parse_format('torch.load', format, true)
  check_referenced('torch.load', referenced)
  local reader = file.open('torch.load', path)
  local ok, value = pcall(decode, 'torch.load', path .. ': ', stream.file(reader), format, long_size, referenced)
  reader:close()
  if not ok then error(value, 0) end
  return value
end

-- torch.serialize(object[, format]): the file's bytes as a string.
function M.serialize(object, format)
  format = parse_format('torch.serialize', format, false)
  return written('torch.serialize', object, format):bytes()
end

-- torch.deserialize(text[, format])
function M.deserialize(text, format)
  if type(text) ~= 'string' then
    error("torch.deserialize: argument 'str' expected a string, got " .. type(text), 2)
  end
  local long_size
  format, long_size = parse_format('torch.deserialize', format, true)
  return decode('torch.deserialize', '', stream.string(text), format, long_size)
end

return M
