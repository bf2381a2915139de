-- The bytes of a .t7 file or string, taken in order. A file is read in blocks (and a storage's
-- data straight into its tensor), never whole into one Lua string; a string is its own block.
local ffi = require 'ffi'

local M = {}
local Stream = {}
Stream.__index = Stream

local BLOCK = 65536

-- reader: fused.file's reader, or nil for a string.
local function new(reader, text, size)
  return setmetatable({ reader = reader, block = text, start = 0, pos = 0, size = size }, Stream)
end

function M.file(reader) return new(reader, '', reader.size) end
function M.string(text) return new(nil, text, #text) end

function Stream:remaining() return self.size - self.pos end

-- The next n bytes as a string, or nil when fewer remain.
function Stream:take(n)
  if n > self.size - self.pos then return nil end
  local at = self.pos - self.start
  if at + n > #self.block then
    if n >= BLOCK then -- one long string: read it alone
      local s = self.reader:read(self.pos, n)
      self.pos = self.pos + n
      return s
    end
    self.start, at = self.pos, 0
    self.block = self.reader:read(self.pos, math.min(BLOCK, self.size - self.pos))
  end
  self.pos = self.pos + n
  return self.block:sub(at + 1, at + n)
end

-- Gives back the last byte taken (the ascii format looks one byte ahead).
function Stream:untake() self.pos = self.pos - 1 end

-- Copies the next n bytes to pointer; false when fewer remain.
function Stream:into(pointer, n)
  if n > self.size - self.pos then return false end
  local at = self.pos - self.start
  local have = math.max(0, math.min(n, #self.block - at))
  if have > 0 then ffi.copy(pointer, ffi.cast('const char *', self.block) + at, have) end
  if have < n then self.reader:read_into(ffi.cast('char *', pointer) + have, self.pos + have, n - have) end
  self.pos = self.pos + n
  return true
end

return M
