-- t[i] selects along dim 1 (a view; an element of a 1-D tensor), assignment, negative indices;
-- index_select, gather, masked_fill, where.
local helper = require 'spec.helper'
local fused = helper.fused

describe('indexing', function()
  for _, dtype in ipairs({ 'float32', 'float64' }) do
    local opts = { dtype = dtype }

    it('t[i] is a view along dim 1 and t[i][j] an element (' .. dtype .. ')', function()
      local t = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, opts)
      assert.are.same({ 4, 5, 6 }, t[2]:totable())
      assert.are.equal(6, t[2][3])
      assert.are.equal(6, t[-1][-1])
      assert.are.equal(1, t[-2][1])
      -- a view: writing through it writes t
      t[1]:fill_(0)
      assert.are.same({ { 0, 0, 0 }, { 4, 5, 6 } }, t:totable())
      -- a strided view indexes by its strides
      local tt = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, opts):t()
      assert.are.same({ 2, 5 }, tt[2]:totable())
      assert.are.equal(6, tt[3][2])
    end)

    it('t[i] = v and t[i][j] = v write numbers and tensors (' .. dtype .. ')', function()
      local t = fused.zeros(3, 2, opts)
      t[1] = 7
      t[2][2] = 5
      t[-1] = fused.tensor({ 8, 9 }, opts)
      assert.are.same({ { 7, 7 }, { 0, 5 }, { 8, 9 } }, t:totable())
      t[3] = fused.tensor({ 1 }, opts) -- broadcast
      assert.are.same({ 1, 1 }, t[3]:totable())
      local v = fused.zeros(4, opts):narrow(1, 2, 2)
      v[2] = 3
      assert.are.same({ 0, 3 }, v:totable())
    end)
  end

  it('reads int64 and bool elements as Lua values', function()
    assert.are.equal(3, fused.tensor({ 1, 3 }, { dtype = 'int64' })[2])
    assert.are.equal(false, fused.tensor({ true, false })[2])
    local b = fused.tensor({ true, true })
    b[1] = false
    assert.are.same({ false, true }, b:totable())
  end)

  it('out-of-range and odd indices are clear errors; methods and properties still resolve', function()
    local t = fused.zeros(2, 3)
    helper.assert_error(function() return t[3] end, 'index 3 is out of range for dim 1 of size 2')
    helper.assert_error(function() return t[0] end, 'index 0 is out of range')
    helper.assert_error(function() return t[1.5] end, 'index 1.5 for dim 1 is not an integer')
    helper.assert_error(function() t[-3] = 1 end, 'index -3 is out of range')
    helper.assert_error(function() t[1] = 'x' end, 't[i] = v expected a number, a boolean or a tensor for v, got string')
    helper.assert_error(function() t[1] = fused.zeros(2) end, "t[i] = v: argument 'v' expected a shape that broadcasts to t[i]'s shape [3], got [2]")
    assert.are.equal(2, t.ndim)
    assert.are.equal('float32', t.dtype)
    assert.are.equal(3, t:size(2))
  end)

  it('index_select picks along a dim by int64 indices or a Lua list', function()
    for _, dtype in ipairs({ 'float32', 'float64', 'int64' }) do
      local t = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, { dtype = dtype })
      assert.are.same({ { 3, 1, 3 }, { 6, 4, 6 } }, t:index_select(2, { 3, 1, 3 }):totable())
      assert.are.same({ { 4, 5, 6 } }, t:index_select(1, fused.tensor({ 2 }, { dtype = 'int64' })):totable())
      assert.are.same({ { 2 }, { 5 } }, t:t():index_select(1, { 2 }):t():totable())
    end
    local t = fused.zeros(2, 3)
    helper.assert_error(function() t:index_select(2, { 4 }) end,
                        "index_select: argument 'index' expected integers 1 to 3, got 4 at position 1")
    helper.assert_error(function() t:index_select(3, { 1 }) end, "index_select: argument 'dim' expected a dim in 1..2")
    helper.assert_error(function() t:index_select(1, fused.zeros(1, 1, { dtype = 'int64' })) end,
                        "index_select: argument 'index' expected 1 dim, got 2")
    helper.assert_error(function() t:index_select(1, 'x') end, "index_select: argument 'index' expected a tensor, got string")
  end)

  it('gather picks per element, as out[i][j] = t[i][index[i][j]] along dim 2', function()
    local t = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, { dtype = 'float64' })
    local idx = { { 3, 3, 1, 2 }, { 1, 2, 2, 1 } }
    local got = t:gather(2, idx):totable()
    local ref = t:totable()
    for i = 1, 2 do
      for j = 1, 4 do assert.are.equal(ref[i][idx[i][j]], got[i][j]) end
    end
    assert.are.same({ { 4, 2, 6 } }, t:gather(1, { { 2, 1, 2 } }):totable())
    helper.assert_error(function() t:gather(2, { { 1 } }) end, "gather: argument 'index' expected shape [2, 1]")
    helper.assert_error(function() t:gather(2, { { 0, 1, 1 }, { 1, 1, 1 } }) end,
                        "gather: argument 'index' expected integers 1 to 3, got 0 at position 1")
  end)

  it('masked_fill and where broadcast the mask and the values', function()
    for _, dtype in ipairs({ 'float32', 'float64' }) do
      local t = fused.tensor({ { 1, -2, 3 }, { -4, 5, -6 } }, { dtype = dtype })
      assert.are.same({ { 1, 0, 3 }, { 0, 5, 0 } }, t:masked_fill(t:lt(0), 0):totable())
      local row = fused.tensor({ true, false, true })
      assert.are.same({ { 9, -2, 9 }, { 9, 5, 9 } }, t:masked_fill(row, 9):totable())
      assert.are.same({ { 1, -2, 3 }, { -4, 5, -6 } }, t:totable()) -- not in place
      local v = t:narrow(2, 2, 2)
      v:masked_fill_(v:gt(0), 1)
      assert.are.same({ { 1, -2, 1 }, { -4, 1, -6 } }, t:totable())
      local w = fused.where(t:gt(0), t, fused.tensor({ 10, 20, 30 }, { dtype = dtype }))
      assert.are.same({ { 1, 20, 1 }, { 10, 1, 30 } }, w:totable())
      local out = fused.empty(2, 3, { dtype = dtype })
      assert.are.equal(out, fused.where(t:gt(0), 0, fused.full({ 1 }, -1, { dtype = dtype }), { out = out }))
      assert.are.same({ { 0, -1, 0 }, { -1, 0, -1 } }, out:totable())
    end
    local t = fused.zeros(2, 3)
    helper.assert_error(function() t:masked_fill(t, 1) end, "masked_fill: argument 'mask' expected a bool tensor (t:gt(0), say), got float32")
    helper.assert_error(function() t:masked_fill_(fused.tensor({ { true }, { false }, { true } }), 1) end,
                        "masked_fill_: argument 'self' of shape [2, 3] does not broadcast with 'mask' of shape [3, 1]")
    helper.assert_error(function() fused.where(t:gt(0), 1, 2) end, "where: expected a tensor for 'a' or 'b'")
    helper.assert_error(function() t:masked_fill_(fused.tensor({ { { true } } }), 1) end,
                        "masked_fill_: the result's shape [1, 2, 3] differs from 'self''s [2, 3]")
  end)
end)
