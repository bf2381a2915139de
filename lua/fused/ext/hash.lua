-- SHA-256 (FIPS 180-4) of strings and files: the build keys of fused.ext and the digests its
-- cache records. A cryptographic hash, because a key also stands for what a cached file must
-- contain: with a weak one (fused used 64-bit FNV-1a) a file can be made to match a key that
-- belongs to other sources, on purpose; no file can be made to match a SHA-256 digest.
local ffi = require 'ffi'
local bit = require 'bit'
local lib = require 'fused.lib'

local band, bor, bxor, bnot, ror, rshift, tobit = bit.band, bit.bor, bit.bxor, bit.bnot, bit.ror,
  bit.rshift, bit.tobit

local M = {}

local K = ffi.new('int32_t[64]')
local K_VALUES = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2 }
for i, k in ipairs(K_VALUES) do K[i - 1] = tobit(k) end -- as int32: bit's arithmetic
local H0 = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
             0x5be0cd19 }

local W = ffi.new('int32_t[64]')

-- Folds the n 64-byte blocks at p into the state H (int32_t[8]).
local function blocks(H, p, n)
  for _ = 1, n do
    for i = 0, 15 do
      W[i] = bor(bit.lshift(p[4 * i], 24), bit.lshift(p[4 * i + 1], 16), bit.lshift(p[4 * i + 2], 8),
                 p[4 * i + 3])
    end
    for i = 16, 63 do
      local a, b = W[i - 15], W[i - 2]
      local s0 = bxor(ror(a, 7), ror(a, 18), rshift(a, 3))
      local s1 = bxor(ror(b, 17), ror(b, 19), rshift(b, 10))
      W[i] = tobit(W[i - 16] + s0 + W[i - 7] + s1)
    end
    local a, b, c, d, e, f, g, h = H[0], H[1], H[2], H[3], H[4], H[5], H[6], H[7]
    for i = 0, 63 do
      local S1 = bxor(ror(e, 6), ror(e, 11), ror(e, 25))
      local ch = bxor(band(e, f), band(bnot(e), g))
      local t1 = tobit(h + S1 + ch + K[i] + W[i])
      local S0 = bxor(ror(a, 2), ror(a, 13), ror(a, 22))
      local maj = bxor(band(a, b), band(a, c), band(b, c))
      h, g, f, e, d, c, b, a = g, f, e, tobit(d + t1), c, b, a, tobit(t1 + S0 + maj)
    end
    H[0], H[1], H[2], H[3] = tobit(H[0] + a), tobit(H[1] + b), tobit(H[2] + c), tobit(H[3] + d)
    H[4], H[5], H[6], H[7] = tobit(H[4] + e), tobit(H[5] + f), tobit(H[6] + g), tobit(H[7] + h)
    p = p + 64
  end
end

-- The running digest: one, reset for each hash (no hash is begun inside another), and
-- updated where the bytes are, never copying them: the garbage of a new digest and copies
-- for each hash made a cached load's collector run longer than the rest of the load.
local state, block, fill, length = ffi.new('int32_t[8]'), ffi.new('uint8_t[64]'), 0, 0

local function begin()
  for i, h in ipairs(H0) do state[i - 1] = tobit(h) end
  fill, length = 0, 0
end

-- Adds the n bytes at p (a pointer), or the string p.
local function update(p, n)
  if type(p) == 'string' then p, n = ffi.cast('const uint8_t *', p), #p end
  length = length + n
  if fill > 0 then -- complete the block begun before
    local k = math.min(64 - fill, n)
    ffi.copy(block + fill, p, k)
    fill, p, n = fill + k, p + k, n - k
    if fill < 64 then return end
    blocks(state, block, 1)
    fill = 0
  end
  local whole = math.floor(n / 64)
  blocks(state, p, whole)
  fill = n - 64 * whole
  ffi.copy(block, p + 64 * whole, fill)
end

local digest = ffi.new('uint8_t[32]')
-- The 32 bytes of the digest of what was added since begin().
local function finish()
  local bits = length * 8
  -- 0x80, zeros up to 56 bytes into a block, the length in bits in 8 bytes, big-endian
  update('\128')
  if fill > 56 then
    ffi.fill(block + fill, 64 - fill)
    blocks(state, block, 1)
    fill = 0
  end
  ffi.fill(block + fill, 56 - fill)
  for i = 0, 7 do block[63 - i] = math.floor(bits / 2 ^ (8 * i)) % 256 end
  blocks(state, block, 1)
  for i = 0, 7 do
    local v = state[i]
    digest[4 * i], digest[4 * i + 1] = band(rshift(v, 24), 255), band(rshift(v, 16), 255)
    digest[4 * i + 2], digest[4 * i + 3] = band(rshift(v, 8), 255), band(v, 255)
  end
  return ffi.string(digest, 32)
end

function M.sha256(text)
  begin()
  update(text)
  return finish()
end

-- A running hash of fields: h = M.add(h, text), starting from nil, is the digest of the
-- previous digest (32 bytes, zeros at first) and text, so ('ab', 'c') and ('a', 'bc') differ.
local ZERO = string.rep('\0', 32)
function M.add(h, text)
  begin()
  update(h or ZERO)
  update(text)
  return finish()
end

function M.hex(h) return (h:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end

-- The C error's reason, without the C function's name and the path.
local function why(path)
  local message = ffi.string(lib.C.fused_last_error()):gsub('^file_%w+: ', '')
  return (message:sub(1, #path + 2) == path .. ': ' and message:sub(#path + 3) or message)
end

-- An open descriptor and the size of a regular file of at most limit bytes, else nil and why
-- not; opened without blocking (a FIFO with no writer).
local function open(path, limit)
  local fd, size = ffi.new('int32_t[1]'), ffi.new('int64_t[1]')
  if lib.C.fused_file_open(path, fd, size) ~= 0 then return nil, why(path) end
  local n = tonumber(size[0])
  if n > limit then
    lib.C.fused_file_close(fd[0])
    return nil, string.format('larger than %d bytes (%d)', limit, n)
  end
  return fd[0], n
end

-- The file's contents, at most limit bytes (default 64 MiB), or nil and why not: a file that
-- is missing, no regular file (a FIFO would block, a device never ends) or larger.
local LIMIT = 64 * 1024 * 1024
function M.read(path, limit)
  local fd, n = open(path, limit or LIMIT)
  if not fd then return nil, n end
  local buffer = ffi.new('char[?]', math.max(n, 1))
  local rc = lib.C.fused_file_read(fd, 0, buffer, n)
  lib.C.fused_file_close(fd)
  if rc ~= 0 then return nil, why(path) end
  return ffi.string(buffer, n)
end

-- The SHA-256 of the file's contents, read in parts; nil and why not as read.
local CHUNK = 65536
local buffer = ffi.new('char[?]', CHUNK) -- one for every file: a new one each would feed the GC
function M.file(path, limit)
  local fd, n = open(path, limit or LIMIT)
  if not fd then return nil, n end
  begin()
  local offset = 0
  while offset < n do
    local k = math.min(CHUNK, n - offset)
    if lib.C.fused_file_read(fd, offset, buffer, k) ~= 0 then
      lib.C.fused_file_close(fd)
      return nil, why(path)
    end
    update(ffi.cast('const uint8_t *', buffer), k)
    offset = offset + k
  end
  lib.C.fused_file_close(fd)
  return finish()
end

return M
