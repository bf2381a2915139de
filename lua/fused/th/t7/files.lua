-- Torch7's File objects over the .t7 encodings: torch.DiskFile(path, mode) and
-- torch.MemoryFile([storage, ]mode), with writeObject/readObject (one object index per file,
-- as Torch7's: an object written twice to one file is read back as one), the scalar reads and
-- writes (writeInt, readDouble...), binary()/ascii() (ascii is Torch7's default) and close().
-- torch.save and torch.load are one writeObject or readObject on such a file, and a class's
-- own write(file) and read(file, version) methods get the file. A DiskFile written is saved
-- whole at close(), atomically (fused.file): never half a file at the path.
local ffi = require 'ffi'
local file = require 'fused.file'
local stream = require 'fused.th.t7.stream'
local read = require 'fused.th.t7.read'
local write = require 'fused.th.t7.write'

local M = {}
local codecs = { binary = require 'fused.th.t7.binary', ascii = require 'fused.th.t7.ascii' }

local File = {}
File.__index = File

-- name: the public function errors name; where: 'PATH: ' (or '') in messages about the input;
-- source: a stream to read, or nil to write.
function M.new(name, where, source)
  return setmetatable({ name = name, where = where, source = source, format = 'ascii', long_size = 8,
                        chunks = {}, is_referenced = true }, File)
end

local function fail_closed(self, method)
  if self.closed then error(string.format('%s.%s: the file is closed', self.name, method), 3) end
end

-- The writer (and its encoder in the current format), made at the first write.
function File:writer()
  fail_closed(self, 'writeObject')
  if self.source then error(self.name .. ': the file is open for reading, not writing', 3) end
  if not self.w then
    local name = self.object_name or self.name .. '.writeObject'
    self.w = write.new(codecs[self.format].encoder(self.chunks), function(fmt, ...)
      error(string.format(name .. ": argument 'object': " .. fmt, ...), 0)
    end, self.is_referenced)
    self.w.file = self
  end
  return self.w
end

function File:reader()
  fail_closed(self, 'readObject')
  if not self.source then error(self.name .. ': the file is open for writing, not reading', 3) end
  if not self.r then
    local src = self.source
    local decoder = codecs[self.format].decoder(src, function(fmt, ...)
      error(string.format('%s: %sat byte %d: ' .. fmt, self.name, self.where, src.pos, ...), 0)
    end, self.long_size)
    self.r = read.new(decoder, self.is_referenced)
    self.r.file = self
  end
  return self.r
end

local function set_format(self, format)
  self.format = format
  if self.w then
    self.w.e:flush()
    self.w.e = codecs[format].encoder(self.chunks)
  end
  if self.r then self.r.d = codecs[format].decoder(self.source, self.r.d.fail, self.long_size) end
  return self
end
function File:binary() return set_format(self, 'binary') end
function File:ascii() return set_format(self, 'ascii') end
function File:isBinary() return self.format == 'binary' end

-- Torch7's file:longSize(4) for files from 32-bit Torch7 (binary only).
function File:longSize(n)
  self.long_size = n
  return set_format(self, self.format)
end

-- referenced(false): every object written anew, none read back as one seen before.
function File:referenced(on)
  self.is_referenced = on ~= false
  if self.w then self.w.referenced = self.is_referenced end
  if self.r then self.r.referenced = self.is_referenced end
  return self
end
function File:isReferenced() return self.is_referenced end
function File:quiet() return self end

function File:writeObject(value)
  local w = self:writer()
  w:find_storages(value)
  w:object(value, 'object')
  return self
end

function File:readObject() return self:reader():object() end

for _, kind in ipairs({ 'Int', 'Long', 'Float', 'Double' }) do
  local method = kind:lower()
  File['write' .. kind] = function(self, v)
    self:writer().e[method](self:writer().e, v)
    return self
  end
  File['read' .. kind] = function(self) return self:reader().d[method](self:reader().d, 'a ' .. method) end
end
function File:writeBool(v) return self:writeInt(v and 1 or 0) end
function File:readBool() return self:readInt() == 1 end

-- The bytes written so far (chunks as one string).
function File:bytes()
  if self.w then self.w.e:flush() end
  local parts = {}
  for i, chunk in ipairs(self.chunks) do
    parts[i] = type(chunk) == 'string' and chunk or ffi.string(chunk[1], chunk[2])
  end
  self.chunks = { table.concat(parts) }
  return self.chunks[1]
end

function File:close()
  if self.closed then return end
  if self.path then
    if self.w then self.w.e:flush() end
    file.write_atomic(self.name, self.path, self.chunks)
  end
  if self.handle then self.handle:close() end
  self.closed = true
end

-- A MemoryFile's contents, for torch.MemoryFile(storage, 'r'): Torch7's CharStorage.
local CharStorage = {}
CharStorage.__index = CharStorage
function CharStorage:string() return self.text end
function CharStorage:size() return #self.text end

function File:storage()
  if self.path or self.source then error(self.name .. '.storage: only a MemoryFile being written has one', 2) end
  return setmetatable({ text = self:bytes() }, CharStorage)
end

local function check_mode(name, mode)
  if mode ~= 'r' and mode ~= 'w' then
    error(string.format("%s: argument 'mode' expected 'r' or 'w', got %s", name,
                        type(mode) == 'string' and "'" .. mode .. "'" or tostring(mode)), 3)
  end
end

-- torch.DiskFile(path[, mode = 'r'[, quiet]])
function M.DiskFile(path, mode)
  mode = mode or 'r'
  check_mode('torch.DiskFile', mode)
  if mode == 'w' then
    if type(path) ~= 'string' or path == '' then
      error("torch.DiskFile: argument 'path' expected a file name, got " .. tostring(path), 2)
    end
    local f = M.new('torch.DiskFile', path .. ': ')
    f.path = path
    return f
  end
  local handle = file.open('torch.DiskFile', path)
  local f = M.new('torch.DiskFile', path .. ': ', stream.file(handle))
  f.handle = handle
  return f
end

-- torch.MemoryFile([mode = 'w']) to write, torch.MemoryFile(storage[, mode = 'r']) to read.
function M.MemoryFile(storage, mode)
  if type(storage) == 'string' and mode == nil and getmetatable(storage) ~= CharStorage then
    storage, mode = nil, storage
  end
  if storage == nil then
    mode = mode or 'w'
    if mode ~= 'w' then error("torch.MemoryFile: argument 'mode' expected 'w' without a storage (or 'r' with one)", 2) end
    return M.new('torch.MemoryFile', '')
  end
  if getmetatable(storage) ~= CharStorage then
    error("torch.MemoryFile: argument 'storage' expected a MemoryFile's storage(), got " .. type(storage), 2)
  end
  if (mode or 'r') ~= 'r' then error("torch.MemoryFile: argument 'mode' expected 'r' with a storage (or 'w' without one)", 2) end
  return M.new('torch.MemoryFile', '', stream.string(storage.text))
end

return M
