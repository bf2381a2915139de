-- Torch7's 'ascii' format (THDiskFile in text mode): each write of n numbers prints them
-- separated by spaces and ends the line; integers as %d, floats as %.9g, doubles as %.17g;
-- strings, and Byte and Char storages' data, are their raw bytes, then a newline.
local ffi = require 'ffi'
local show = require('fused.th.t7.types').show

local M = {}

-- Reading ------------------------------------------------------------------------------------
local Decoder = { parses = true } -- values are parsed, never copied as bytes
Decoder.__index = Decoder

function M.decoder(stream, fail, long_size)
  if long_size ~= 8 then fail("'b32' and 'b64' are binary formats") end
  return setmetatable({ stream = stream, fail = fail, long_size = 8 }, Decoder)
end

local MAX_TOKEN = 64

-- The next word (fscanf skips the white space before it).
function Decoder:token(what)
  local word = self.stream:word(MAX_TOKEN)
  if word == nil then self.fail('truncated: expected %s', what) end
  if not word then self.fail('%s is not a number: a word of over %d bytes', what, MAX_TOKEN) end
  return word
end

-- After a write's last value, its newline.
function Decoder:end_line()
  local c = self.stream:take(1)
  if c and c ~= '\n' then self.stream:untake() end
end

local specials = { inf = math.huge, ['+inf'] = math.huge, ['-inf'] = -math.huge, infinity = math.huge,
                   ['+infinity'] = math.huge, ['-infinity'] = -math.huge, nan = 0 / 0, ['-nan'] = 0 / 0,
                   ['+nan'] = 0 / 0 }

local function real(self, what)
  local text = self:token(what)
  local v = tonumber(text) or specials[text:lower()] -- as %lg: decimal, hex, inf and nan
  if not v then self.fail('%s is not a number: %s', what, show(text)) end
  return v
end

-- An integer within [-2^63, 2^63), exactly (an int64_t).
local function integer(self, what)
  local text = self:token(what)
  local sign, digits = text:match('^([+-]?)(%d+)$')
  if not digits or #digits > 19 then self.fail('%s is not an integer: %s', what, show(text)) end
  local v = 0ULL
  for i = 1, #digits do v = v * 10 + (digits:byte(i) - 48) end
  if v > (sign == '-' and 2ULL ^ 63 or 2ULL ^ 63 - 1) then
    self.fail('%s is out of range: %s', what, show(text))
  end
  return sign == '-' and -ffi.cast('int64_t', v) or ffi.cast('int64_t', v)
end

local function scalar(parse)
  return function(self, what)
    local v = parse(self, what)
    self:end_line()
    return v
  end
end

function Decoder:int(what)
  local v = integer(self, what)
  if v < -2 ^ 31 or v >= 2 ^ 31 then self.fail('%s is out of range: %s', what, tostring(v):sub(1, -3)) end
  self:end_line()
  return tonumber(v)
end

function Decoder:long(what)
  local v = integer(self, what)
  if v >= 2 ^ 53 or v <= -2 ^ 53 then self.fail('%s is %s: too large', what, tostring(v):sub(1, -3)) end
  self:end_line()
  return tonumber(v)
end

Decoder.float = scalar(real)
Decoder.double = scalar(real)

function Decoder:chars(n, what)
  local s = n == 0 and '' or self.stream:take(n)
  if not s then self.fail('truncated: %s needs %d bytes, %d remain', what, n, self.stream:remaining()) end
  if n > 0 then self:end_line() end
  return s
end

function Decoder:longs(n, what)
  local list = {}
  for i = 1, n do list[i] = tonumber(integer(self, what)) end
  for i = 1, n do
    if list[i] >= 2 ^ 53 or list[i] <= -2 ^ 53 then self.fail('%s is %d: too large', what, list[i]) end
  end
  if n > 0 then self:end_line() end
  return list
end

-- Bytes as they are; numbers parsed into doubles (integers into int64_t, exactly).
function Decoder:raw_ctype(element)
  if element.raw then return element.ctype end
  return element.integer and 'int64_t' or 'double'
end

-- The fewest bytes an element takes in a file: a byte, or a digit and a space.
function Decoder:least_bytes(element) return element.raw and 1 or 2 end

local ranges = { Short = 2 ^ 15, Int = 2 ^ 31 }

function Decoder:array(pointer, element, n, what)
  if element.raw then
    if not self.stream:into(pointer, n) then
      self.fail('truncated: %s needs %d bytes, %d remain', what, n, self.stream:remaining())
    end
  else
    local limit = ranges[element.name]
    for i = 0, n - 1 do
      local v = element.integer and integer(self, what) or real(self, what)
      if limit and (v < -limit or v >= limit) then
        self.fail('%s: %s is out of range for %s', what, tostring(v):sub(1, -3), element.name)
      end
      pointer[i] = v
    end
  end
  if n > 0 then self:end_line() end
end

-- Writing ------------------------------------------------------------------------------------
local Encoder = {}
Encoder.__index = Encoder

function M.encoder(chunks)
  return setmetatable({ chunks = chunks, parts = {} }, Encoder)
end

function Encoder:put(s) self.parts[#self.parts + 1] = s end
function Encoder:int(v) self:put(string.format('%d\n', v)) end
Encoder.long = Encoder.int
function Encoder:float(v) self:put(string.format('%.9g\n', v)) end
function Encoder:double(v) self:put(string.format('%.17g\n', v)) end

function Encoder:chars(s)
  if #s > 0 then self:put(s .. '\n') end
end

function Encoder:longs(list)
  if #list > 0 then self:put(table.concat(list, ' ') .. '\n') end
end

function Encoder:flush()
  if #self.parts > 0 then
    self.chunks[#self.chunks + 1] = table.concat(self.parts)
    self.parts = {}
  end
end

-- A float16's bits as a number.
local function half_value(bits)
  local sign = bits >= 0x8000 and -1 or 1
  local exponent, mantissa = math.floor(bits / 1024) % 32, bits % 1024
  if exponent == 31 then return mantissa == 0 and sign * math.huge or 0 / 0 end
  if exponent == 0 then return sign * mantissa * 2 ^ -24 end
  return sign * (1 + mantissa / 1024) * 2 ^ (exponent - 15)
end

-- n elements of the element type at pointer (its own C type; Half's are float16 bits).
function Encoder:array(pointer, element, n)
  if n == 0 then return end
  if element.raw then return self:put(ffi.string(pointer, n) .. '\n') end
  local values = ffi.cast('const ' .. element.ctype .. ' *', pointer)
  local text = {}
  for i = 0, n - 1 do
    local v = values[i]
    if element.integer then text[i + 1] = tostring(v):gsub('LL$', '')
    else text[i + 1] = string.format(element.format, element.name == 'Half' and half_value(v) or v) end
  end
  self:put(table.concat(text, ' ') .. '\n')
end

return M
