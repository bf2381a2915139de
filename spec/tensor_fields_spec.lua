-- A tensor's fields are C's to write: Lua reads them, and C checks that what they describe
-- lies inside the storage before every op, so a struct corrupted anyway is an error, not a
-- write past the end of the storage.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

describe('tensor fields', function()
  it('are read-only from Lua', function()
    local t = fused.zeros({ 2, 3 })
    err(function() t.sizes[0] = 1000 end, 'constant')
    err(function() t.strides[1] = 0 end, 'constant')
    err(function() t.ndim = 8 end, 'constant')
    err(function() t.scalar_type = 1 end, 'constant')
    err(function() t.device_type = 1 end, 'constant')
    err(function() t.data = t.data + 8 end, 'constant')
    err(function() t.storage = nil end, 'constant')
    assert.are.same({ 2, 3 }, t:shape())
    assert.are.equal(2, tonumber(t.sizes[0]))
  end)

  it('corrupted past the storage: the next op refuses the tensor', function()
    local t = fused.zeros({ 2, 3 })
    ffi.cast('int64_t*', t.sizes)[0] = 1000
    err(function() t:fill_(1) end, 'fill_', "'self'", 'views elements past the end of its storage')
    helper.poke(t, 'sizes', 2)
    helper.poke(t, 'strides', 7, 1)
    err(function() t:sum() end, 'past the end of its storage')
    helper.poke(t, 'strides', 1, 1)
    helper.poke(t, 'data', ffi.cast('char*', t.data) + 4 * 6)
    err(function() fused.zeros({ 2, 3 }):copy_(t) end, "'src'", 'past the end of its storage')
    helper.poke(t, 'data', ffi.cast('char*', t.data) - 4 * 6)
    helper.poke(t, 'scalar_type', 1) -- float64 elements: twice the bytes
    err(function() t:fill_(1) end, 'past the end of its storage')
    helper.poke(t, 'scalar_type', 0)
    assert.are.same({ { 1, 1, 1 }, { 1, 1, 1 } }, t:fill_(1):totable())
  end)

  it('corrupted sizes and offsets: refused', function()
    local t = fused.zeros({ 4 })
    helper.poke(t, 'sizes', -1)
    err(function() t:fill_(1) end, 'fill_', 'size -1 in dim 1')
    helper.poke(t, 'sizes', 4)
    helper.poke(t, 'data', ffi.cast('char*', t.data) + 2)
    err(function() t:fill_(1) end, 'fill_', 'starts 2 bytes into its storage')
    helper.poke(t, 'data', ffi.cast('char*', t.data) - 2)
    helper.poke(t, 'strides', -1) -- reaches 3 elements before the first
    err(function() t:fill_(1) end, 'past the end of its storage')
    helper.poke(t, 'strides', 2 ^ 62) -- (size - 1) * stride overflows int64
    err(function() t:fill_(1) end, 'past the end of its storage')
    helper.poke(t, 'strides', 1)
    assert.are.same({ 1, 1, 1, 1 }, t:fill_(1):totable())
  end)
end)
