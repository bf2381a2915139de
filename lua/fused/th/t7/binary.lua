-- Torch7's 'binary' format: numbers as the machine holds them, little-endian x86_64 (an int
-- 4 bytes, a long 8, or 4 in files from 32-bit Torch7: torch.load's 'b32'), strings and
-- storages' data as their bytes.
local ffi = require 'ffi'

assert(ffi.abi('le'), 'fused.th.t7: big-endian hosts are not supported')

local M = {}

-- Reading ------------------------------------------------------------------------------------
local Decoder = {}
Decoder.__index = Decoder

-- stream: fused.th.t7.stream; fail(fmt, ...) raises an error about the input.
function M.decoder(stream, fail, long_size)
  return setmetatable({ stream = stream, fail = fail, long_size = long_size or 8 }, Decoder)
end

function Decoder:take(n, what)
  local s = self.stream:take(n)
  if not s then self.fail('truncated: %s needs %d bytes, %d remain', what, n, self.stream:remaining()) end
  return s
end

function Decoder:int(what) return tonumber(ffi.cast('const int32_t *', self:take(4, what))[0]) end
function Decoder:float(what) return tonumber(ffi.cast('const float *', self:take(4, what))[0]) end
function Decoder:double(what) return tonumber(ffi.cast('const double *', self:take(8, what))[0]) end
function Decoder:chars(n, what) return self:take(n, what) end

function Decoder:long(what)
  if self.long_size == 4 then return self:int(what) end
  local v = ffi.cast('const int64_t *', self:take(8, what))[0]
  -- Sizes, strides and offsets: past 2^53 a double would not hold them, and no file does.
  if v >= 2 ^ 53 or v <= -2 ^ 53 then self.fail('%s is %s: too large', what, tostring(v):sub(1, -3)) end
  return tonumber(v)
end

function Decoder:longs(n, what)
  local list = {}
  for i = 1, n do list[i] = self:long(what) end
  return list
end

-- The C type the file holds an element type's values in.
function Decoder:raw_ctype(element)
  return element.ctype == 'int64_t' and self.long_size == 4 and 'int32_t' or element.ctype
end

-- The fewest bytes an element takes in a file.
function Decoder:least_bytes(element) return ffi.sizeof(self:raw_ctype(element)) end

-- Reads n elements of the element type into pointer (of raw_ctype).
function Decoder:array(pointer, element, n, what)
  local bytes = n * ffi.sizeof(self:raw_ctype(element))
  if not self.stream:into(pointer, bytes) then
    self.fail('truncated: %s needs %d bytes, %d remain', what, bytes, self.stream:remaining())
  end
end

-- Writing ------------------------------------------------------------------------------------
local Encoder = {}
Encoder.__index = Encoder

-- Appends to chunks (fused.file.write_atomic's list): small values gathered into strings,
-- storages' data as pointers.
function M.encoder(chunks)
  return setmetatable({ chunks = chunks, parts = {} }, Encoder)
end

local int_box, long_box = ffi.new('int32_t[1]'), ffi.new('int64_t[1]')
local float_box, double_box = ffi.new('float[1]'), ffi.new('double[1]')

function Encoder:put(s) self.parts[#self.parts + 1] = s end

function Encoder:int(v) int_box[0] = v; self:put(ffi.string(int_box, 4)) end
function Encoder:long(v) long_box[0] = v; self:put(ffi.string(long_box, 8)) end
function Encoder:float(v) float_box[0] = v; self:put(ffi.string(float_box, 4)) end
function Encoder:double(v) double_box[0] = v; self:put(ffi.string(double_box, 8)) end
function Encoder:chars(s) self:put(s) end

function Encoder:longs(list)
  for _, v in ipairs(list) do self:long(v) end
end

function Encoder:flush()
  if #self.parts > 0 then
    self.chunks[#self.chunks + 1] = table.concat(self.parts)
    self.parts = {}
  end
end

-- n elements of the element type at pointer (its own C type), kept alive by owner.
function Encoder:array(pointer, element, n, owner)
  self:flush()
  self.chunks[#self.chunks + 1] = { pointer, n * element.size, owner }
end

return M
