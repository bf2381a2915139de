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
    self:refill()
    at = 0
  end
  self.pos = self.pos + n
  return self.block:sub(at + 1, at + n)
end

-- The block from pos on.
function Stream:refill()
  self.start = self.pos
  self.block = self.reader:read(self.pos, math.min(BLOCK, self.size - self.pos))
end

-- The next word after white space, as fscanf reads a number: a string of at most max bytes
-- (max < BLOCK), false when it runs longer, nil at the end of the input.
function Stream:word(max)
  while true do
    local ends = self.start + #self.block
    if self.pos + max + 1 > ends and ends < self.size then self:refill() end
    local first, last = self.block:find('%S+', self.pos - self.start + 1)
    if not first then -- white space to the block's end
      self.pos = self.start + #self.block
      if self.pos >= self.size then return nil end
    else
      self.pos = self.start + first - 1
      if last - first + 1 > max then return false end
      if last < #self.block or self.start + last >= self.size then
        self.pos = self.start + last
        return self.block:sub(first, last)
      end
      self:refill() -- the word may go on past the block
    end
  end
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
