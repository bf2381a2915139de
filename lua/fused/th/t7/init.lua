-- torch.save, torch.load, torch.serialize and torch.deserialize: any Lua value in Torch7's .t7
-- format ('binary', the default, or 'ascii'), which torch7 and its readers (python-torchfile,
-- PyTorch's legacy load_lua) read and wrote. Saving writes the whole file or nothing
-- (fused.file); loading reads the file in blocks and trusts nothing in it.
local ffi = require 'ffi'
local file = require 'fused.file'
local stream = require 'fused.th.t7.stream'
local read = require 'fused.th.t7.read'
local write = require 'fused.th.t7.write'
local codecs = { binary = require 'fused.th.t7.binary', ascii = require 'fused.th.t7.ascii' }

local M = {}

local function quoted(v) return type(v) == 'string' and "'" .. v .. "'" or tostring(v) end

-- The codec and the long's size for a format argument; load also takes 'b64' (binary) and
-- 'b32' (binary from 32-bit Torch7, whose longs were 4 bytes).
local function parse_format(fn, format, loading)
  if format == nil or format == 'binary' or format == 'b64' and loading then return codecs.binary, 8 end
  if format == 'b32' and loading then return codecs.binary, 4 end
  if format == 'ascii' then return codecs.ascii, 8 end
  error(string.format("%s: argument 'format' expected %s, got %s", fn,
                      loading and "'binary', 'ascii', 'b64' or 'b32'" or "'binary' or 'ascii'", quoted(format)), 3)
end

-- Called by the public functions (errors at their caller's line).
local function check_referenced(fn, referenced)
  if referenced ~= nil and type(referenced) ~= 'boolean' then
    error(string.format("%s: argument 'referenced' expected true or false, got %s", fn, quoted(referenced)), 3)
  end
end

-- The chunks of value's encoding; errors name fn.
local function encode(fn, value, codec, referenced)
  local chunks = {}
  local encoder = codec.encoder(chunks)
  local writer = write.new(encoder, function(fmt, ...)
    error(string.format(fn .. ": argument 'object': " .. fmt, ...), 0)
  end, referenced)
  writer:find_storages(value)
  writer:object(value, 'object')
  encoder:flush()
  return chunks
end

-- One value from src (a stream); errors read "fn: where: at byte N: why".
local function decode(fn, where, src, codec, long_size, referenced)
  local decoder
  decoder = codec.decoder(src, function(fmt, ...)
    error(string.format('%s: %sat byte %d: ' .. fmt, fn, where, src.pos, ...), 0)
  end, long_size)
  local value = read.new(decoder, referenced):object()
  if src:remaining() > 0 then decoder.fail('%d bytes after the value', src:remaining()) end
  return value
end

-- torch.save(path, object[, format[, referenced]])
function M.save(path, object, format, referenced)
  local codec = parse_format('torch.save', format, false)
  check_referenced('torch.save', referenced)
  file.write_atomic('torch.save', path, encode('torch.save', object, codec, referenced))
end

-- torch.load(path[, format[, referenced]])
function M.load(path, format, referenced)
  local codec, long_size = parse_format('torch.load', format, true)
  check_referenced('torch.load', referenced)
  local reader = file.open('torch.load', path)
  local ok, value = pcall(decode, 'torch.load', path .. ': ', stream.file(reader), codec, long_size, referenced)
  reader:close()
  if not ok then error(value, 0) end
  return value
end

-- torch.serialize(object[, format]): the file's bytes as a string.
function M.serialize(object, format)
  local codec = parse_format('torch.serialize', format, false)
  local parts = {}
  for i, chunk in ipairs(encode('torch.serialize', object, codec)) do
    parts[i] = type(chunk) == 'string' and chunk or ffi.string(chunk[1], chunk[2])
  end
  return table.concat(parts)
end

-- torch.deserialize(text[, format])
function M.deserialize(text, format)
  if type(text) ~= 'string' then
    error("torch.deserialize: argument 'str' expected a string, got " .. type(text), 2)
  end
  local codec, long_size = parse_format('torch.deserialize', format, true)
  return decode('torch.deserialize', '', stream.string(text), codec, long_size)
end

return M
