-- Lua's collector does not see the bytes behind a tensor; fused paces it so that loops which
-- make and drop tensors stay bounded, and a small op makes no garbage beyond its result.
local helper = require 'spec.helper'
local fused = helper.fused

local function resident_bytes()
  local f = io.open('/proc/self/statm')
  local pages = f:read('*n') and f:read('*n')
  f:close()
  return pages * 4096
end

local MB = 2 ^ 20
-- Rounds enough to pass the 256 MB pacing mark several times, and to break each bound without
-- pacing (2,000 MB and 1,500 MB allocated), yet quick under valgrind.

describe('memory', function()
  it('2,000 dropped 1 MB tensors keep the live bytes bounded', function()
    local peak = 0
    for i = 1, 2000 do
      local t = fused.empty({ 262144 }) -- 1 MB of float32
      if i % 1000 == 0 then
        peak = math.max(peak, tonumber(fused.C.fused_bytes_in_use(0)))
      end
    end
    assert.is_true(peak < 600 * MB, string.format('live bytes reached %.0f MB', peak / MB))
  end)

  it('dropped tensors that are written keep resident memory bounded', function()
    collectgarbage()
    local before = resident_bytes()
    for _ = 1, 1500 do
      local t = fused.zeros({ 262144 })
    end
    local grown = resident_bytes() - before
    assert.is_true(grown < 900 * MB, string.format('resident memory grew by %.0f MB', grown / MB))
  end)

  it('a small op allocates no Lua garbage beyond its result', function()
    local a, b = fused.ones({ 16 }), fused.ones({ 16 })
    for _ = 1, 1000 do local _ = a + b end -- let the JIT compile the loop
    collectgarbage()
    collectgarbage('stop')
    local before = collectgarbage('count')
    local n = 10000
    for _ = 1, n do local _ = a + b end
    local per_op = (collectgarbage('count') - before) * 1024 / n
    collectgarbage('restart')
    -- The result is one fused_tensor struct (152 bytes) plus its cdata header and finalizer entry.
    assert.is_true(per_op < 300, string.format('%.0f bytes of garbage per add', per_op))
  end)

  it('views keep their storage alive after the base is dropped', function()
    local v = fused.tensor({ 1, 2, 3, 4 }):narrow(1, 2, 2)
    collectgarbage()
    collectgarbage()
    assert.are.same({ 2, 3 }, v:totable())
  end)

  it('tensors from 8 MiB up start on a 2 MiB boundary (huge pages), smaller ones on 64 bytes', function()
    local ffi = require 'ffi'
    local function offset(t, align) return tonumber(ffi.cast('uintptr_t', t.data) % align) end
    local big, small = fused.empty({ 2 * MB }), fused.empty({ 2 * MB - 1 }) -- 8 MiB, just under
    assert.are.equal(0, offset(big, 2 * MB))
    assert.are.equal(0, offset(small, 64))
    big:fill_(1)
    assert.are.equal(2 * MB, big:sum())
  end)
end)
