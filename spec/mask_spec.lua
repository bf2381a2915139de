-- Bool masks: t[mask] (a 1-D copy of the selected elements, in row-major order), t[mask] = v,
-- t:masked_select(mask) and t:masked_scatter_(mask, source), against plain-Lua loops.
local helper = require 'spec.helper'
local fused = helper.fused

-- Row-major lists of a nested table's leaves.
local function flat(x, out)
  out = out or {}
  if type(x) ~= 'table' then out[#out + 1] = x return out end
  for _, v in ipairs(x) do flat(v, out) end
  return out
end

-- A mask of shape with a pattern that is neither all true nor regular by rows.
local function mask_of(shape, seed)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  local values = {}
  for i = 1, n do values[i] = (i * 7 + seed) % 3 == 0 end
  return fused.tensor(values):view(shape)
end

describe('t[mask]', function()
  it('selects the elements where the mask is true, in row-major order, for every dtype', function()
    for _, dtype in ipairs(helper.dtypes) do
      local t = helper.sample({ 3, 4, 2 }, dtype)
      local mask = mask_of({ 3, 4, 2 }, 1)
      local values, keep, want = flat(t:totable()), flat(mask:totable()), {}
      for i = 1, #values do if keep[i] then want[#want + 1] = values[i] end end
      local got = t[mask]
      assert.are.same({ #want }, got:shape())
      assert.are.equal(dtype, got.dtype)
      assert.are.same(want, got:totable())
      assert.are.same(want, t:masked_select(mask):totable())
      -- a copy: writing it leaves t as it was
      local before = helper.bytes(t)
      got:zero_()
      assert.are.equal(before, helper.bytes(t))
    end
  end)

  it('reads a strided tensor by its strides', function()
    local t = fused.arange(1, 13, { dtype = 'float64' }):view(3, 4):t() -- 4 x 3
    local mask = t:gt(6)
    local want = {}
    for _, v in ipairs(flat(t:totable())) do if v > 6 then want[#want + 1] = v end end
    assert.are.same(want, t[mask]:totable())
  end)

  it('t[mask] = number fills and = 1-D tensor scatters, in place, through views', function()
    for _, dtype in ipairs({ 'float32', 'float64', 'int64' }) do
      local base = fused.arange(1, 13, { dtype = dtype }):view(3, 4)
      local t = base:t() -- a view: writes must reach base
      local mask = mask_of({ 4, 3 }, 2)
      local ref, keep = t:totable(), mask:totable()
      t[mask] = 0
      for i = 1, 4 do for j = 1, 3 do if keep[i][j] then ref[i][j] = 0 end end end
      assert.are.same(ref, t:totable())
      local n = fused.tensor(flat(keep)):to('int64'):sum()
      local source, k = {}, 0
      for i = 1, n do source[i] = 100 + i end
      t[mask] = fused.tensor(source, { dtype = dtype })
      for i = 1, 4 do
        for j = 1, 3 do
          if keep[i][j] then k = k + 1; ref[i][j] = source[k] end
        end
      end
      assert.are.same(ref, t:totable())
      assert.are.same(ref, base:t():totable())
    end
    local b = fused.tensor({ true, false, true })
    b[fused.tensor({ true, true, false })] = false
    assert.are.same({ false, false, true }, b:totable())
  end)

  it('masked_select broadcasts the mask; masked_scatter_ takes the first elements of source', function()
    local t = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, { dtype = 'float64' })
    assert.are.same({ 1, 3, 4, 6 }, t:masked_select(fused.tensor({ true, false, true })):totable())
    local s = fused.zeros(2, 3, { dtype = 'float64' })
    s:masked_scatter_(fused.tensor({ false, true, true }), fused.tensor({ 7, 8, 9, 10, 11 }, { dtype = 'float64' }))
    assert.are.same({ { 0, 7, 8 }, { 0, 9, 10 } }, s:totable())
    helper.assert_error(function() s:masked_scatter_(t:gt(0), fused.zeros(5, { dtype = 'float64' })) end,
                        "masked_scatter_: argument 'source' expected at least 6 elements (the mask's true ones), got 5")
  end)

  it('a mask of another dtype or shape, or a value of another length, is an error naming both', function()
    local t = fused.zeros(2, 3)
    helper.assert_error(function() return t[t] end, 'mask_spec.lua:',
                        't[mask] expected a bool mask (t:gt(0), say) of t\'s shape [2, 3], got dtype float32')
    helper.assert_error(function() return t[fused.tensor({ 1, 2 }, { dtype = 'int64' })] end,
                        'got dtype int64 (for indices along a dim use t:index_select(dim, index))')
    helper.assert_error(function() return t[fused.tensor({ true, false, true })] end,
                        "t[mask] expected a bool mask of t's shape [2, 3], got shape [3]")
    helper.assert_error(function() t[fused.tensor({ { true }, { false } })] = 1 end,
                        "t[mask] expected a bool mask of t's shape [2, 3], got shape [2, 1]")
    local mask = fused.tensor({ { true, false, true }, { false, false, true } })
    helper.assert_error(function() t[mask] = fused.zeros(2) end,
                        't[mask] = v expected for v a number, a boolean or a 1-D tensor of 3 elements (the mask\'s true ones), got shape [2]')
    helper.assert_error(function() t[mask] = fused.zeros(3, 1) end, 'got shape [3, 1]')
    helper.assert_error(function() t[mask] = 'x' end, 'got string')
    helper.assert_error(function() t[mask] = fused.zeros(3, { dtype = 'float64' }) end,
                        "masked_scatter_: argument 'source' expected dtype float32 (as 'self'), got float64")
    assert.are.same({ 0 }, t[fused.zeros(2, 3):gt(1)]:shape()) -- no true element: empty, as PyTorch
    helper.assert_error(function() t:masked_select(t) end, 'mask_spec.lua:',
                        "masked_select: argument 'mask' expected a bool tensor (t:gt(0), say), got float32")
  end)

  it('on a cuda tensor: an error that says cuda lacks it', function()
    if not helper.has_cuda() then return end
    for _, dtype in ipairs({ 'float32', 'int64' }) do
      local t = fused.zeros(2, 2, { dtype = dtype, device = 'cuda' })
      local mask = fused.tensor({ { true, false }, { true, true } }):cuda()
      helper.assert_error(function() return t[mask] end, 'masked_select: not implemented for cuda tensors yet; call :to(\'cpu\') first')
      helper.assert_error(function() t[mask] = fused.zeros(3, { dtype = dtype, device = 'cuda' }) end,
                          'masked_scatter_: not implemented for cuda tensors yet; call :to(\'cpu\') first')
    end
  end)
end)
