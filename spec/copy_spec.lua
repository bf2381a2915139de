-- t:copy_(src) as PyTorch's: src broadcasts to t's shape (PyTorch 1.13's results in the
-- comments); a src of as many elements in another shape is an error naming view, where Torch7
-- copied in row-major order (a 16x8 into an 8x16 reshaped in silence). t[...] = v copies alike.
-- Each case runs on the CPU and on the CUDA device (the emulator under make test).
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

for _, device in ipairs({ 'cpu', 'cuda' }) do
  local test = device == 'cuda' and helper.gpu_it or it
  local o = { device = device }
  local function on(x) x.device = device; return x end

  describe('copy_ on ' .. device, function()
    test('a src of as many elements in another shape is an error naming view, and writes nothing', function()
      local t = fused.zeros({ 8, 16 }, o)
      local src = fused.arange(1, 129, on({})):view(16, 8)
      -- torch.zeros(8, 16).copy_(torch.ones(16, 8)): RuntimeError, the shapes do not broadcast
      err(function() t:copy_(src) end, 'copy_spec.lua:',
          "copy_: argument 'src' expected a shape that broadcasts to self's shape [8, 16], got [16, 8]",
          'view it first: src:view(8, 16)')
      err(function() t:copy(src) end, "copy_: argument 'src'") -- Torch7's name, the same function
      assert.are.equal(0, t:abs():sum())
      t:copy_(src:view(8, 16)) -- the remedy: Torch7's row-major copy
      assert.are.same(fused.arange(1, 129, on({})):view(8, 16):totable(), t:totable())
      err(function() fused.zeros({ 2, 3 }, o):copy_(fused.ones({ 3, 2 }, o)) end, 'src:view(2, 3)')
      err(function() fused.zeros({ 6 }, o):copy_(fused.ones({ 2, 3 }, o)) end, 'got [2, 3]', 'src:view(6)')
      -- fewer elements that do not broadcast: no view named
      local ok, msg = pcall(function() fused.zeros({ 2, 3 }, o):copy_(fused.ones({ 2 }, o)) end)
      assert.is_false(ok)
      assert.truthy(msg:find("broadcasts to self's shape [2, 3], got [2]", 1, true), msg)
      assert.falsy(msg:find('view', 1, true), msg)
      -- more dims than self, even of size 1 (torch: the broadcast shape [1, 3] is not [3])
      err(function() fused.zeros({ 3 }, o):copy_(fused.ones({ 1, 3 }, o)) end, 'got [1, 3]')
    end)

    test('a src that broadcasts fills every row, column or element, converted to self\'s dtype', function()
      local rows = fused.zeros({ 2, 3 }, o):copy_(fused.tensor({ 1, 2, 3 }, o))
      assert.are.same({ { 1, 2, 3 }, { 1, 2, 3 } }, rows:totable())
      local cols = fused.zeros({ 2, 3 }, on({ dtype = 'float64' })):copy_(fused.tensor({ { 4 }, { 5 } }, on({ dtype = 'int64' })))
      assert.are.same({ { 4, 4, 4 }, { 5, 5, 5 } }, cols:totable())
      assert.are.same({ { 7, 7 }, { 7, 7 } }, fused.zeros({ 2, 2 }, o):copy_(fused.tensor(7, o)):totable())
      assert.are.same({ { 1, 2 }, { 1, 2 } }, fused.zeros({ 2, 2 }, o):copy_(fused.tensor({ { 1, 2 } }, o)):totable())
      -- the same shape, overlapping: read whole first (t:copy_(t:t()) transposes)
      local m = fused.tensor({ { 1, 2 }, { 3, 4 } }, o)
      assert.are.same({ { 1, 3 }, { 2, 4 } }, m:copy_(m:t()):totable())
      -- between devices, broadcast on the way
      local other = device == 'cuda' and 'cpu' or 'cuda'
      if fused.cuda.is_available() then
        local across = fused.zeros({ 2, 3 }, o):copy_(fused.tensor({ 1, 2, 3 }, { device = other }))
        assert.are.same({ { 1, 2, 3 }, { 1, 2, 3 } }, across:totable())
      end
    end)

    test('t[...] = v copies a tensor that broadcasts to the slice, and names v otherwise', function()
      local t = fused.zeros({ 2, 3 }, o)
      t[{ {}, { 2, 3 } }] = fused.tensor({ 5, 6 }, o)
      t[1] = fused.tensor(9, o)
      assert.are.same({ { 9, 9, 9 }, { 0, 5, 6 } }, t:totable())
      err(function() t[2] = fused.ones({ 3, 1 }, o) end,
          "t[i] = v: argument 'v' expected a shape that broadcasts to t[i]'s shape [3], got [3, 1]")
      err(function() t[{ {}, { 1, 2 } }] = fused.ones({ 2, 2 }, o):t():contiguous():view(4) end,
          "t[{...}] = v: argument 'v' expected a shape that broadcasts to t[{...}]'s shape [2, 2], got [4]",
          'view it first: v:view(2, 2)')
      assert.are.same({ { 9, 9, 9 }, { 0, 5, 6 } }, t:totable())
    end)
  end)
end

describe('fused_copy, the C API', function()
  it('takes src of dst\'s shape only: an expanded view broadcasts, another shape is an error', function()
    local C = fused.C
    local dst = fused.zeros({ 8, 16 })
    assert.are.equal(-1, C.fused_copy(dst, fused.ones({ 16, 8 })))
    assert.truthy(require('ffi').string(C.fused_last_error()):find("argument 'src' expected shape [8, 16], got [16, 8]", 1, true))
    assert.are.equal(0, dst:abs():sum())
    assert.are.equal(0, C.fused_copy(dst, fused.ones({ 16 }):expand(8, 16)))
    assert.are.equal(128, dst:sum())
  end)
end)
