-- A 64-bit FNV-1a hash of strings and files, as 16 hex digits: the build keys of fused.ext.
-- Not cryptographic: it tells an edited source from the one built before, nothing more.
local ffi = require 'ffi'
local bit = require 'bit'

local M = {}

local OFFSET, PRIME = 0xcbf29ce484222325ULL, 0x100000001b3ULL

-- A running hash: h = M.add(h, text), starting from nil. A field separator goes first, so
-- that ('ab', 'c') and ('a', 'bc') differ.
function M.add(h, text)
  h = bit.bxor(h or OFFSET, 0xff) * PRIME
  local p = ffi.cast('const uint8_t *', text)
  for i = 0, #text - 1 do h = bit.bxor(h, p[i]) * PRIME end
  return h
end

function M.hex(h) return bit.tohex(h, 16) end

-- The file's contents, or nil when it cannot be read.
function M.read(path)
  local f = io.open(path, 'rb')
  if not f then return nil end
  local text = f:read('*a')
  f:close()
  return text
end

return M
