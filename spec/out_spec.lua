-- The op layer's conventions: in place with a trailing underscore, through views; {out = t}
-- written and returned, resized unless a view, refused when of another dtype.
local helper = require 'spec.helper'
local fused = helper.fused

local F64 = { dtype = 'float64' }

describe('in-place ops', function()
  it('write into self and return it', function()
    local a = fused.tensor({ 1, 2, 3 }, F64)
    assert.are.equal(a, a:add_(1))
    a:mul_(fused.tensor({ 2, 2, 2 }, F64)):neg_()
    assert.are.same({ -4, -6, -8 }, a:totable())
    assert.are.same({ 0, 0, 0 }, a:zero_():totable())
    assert.are.same({ 5, 5, 5 }, a:fill_(5):totable())
  end)

  it('work through a strided view and leave the rest alone', function()
    local m = fused.tensor({ { 1, 2 }, { 3, 4 } }, F64)
    local col = m:select(2, 1)
    assert.is_false(col:is_contiguous())
    col:add_(10)
    assert.are.same({ { 11, 2 }, { 13, 4 } }, m:totable())
    m:t():tanh_()
    helper.assert_close(m, fused.tensor({ { 11, 2 }, { 13, 4 } }, F64):tanh(), 1e-15, 'm')
  end)

  it('addmm_ adds a product into self', function()
    local t = fused.ones({ 2, 2 }, F64)
    t:addmm_(fused.tensor({ { 1, 2 }, { 3, 4 } }, F64), fused.tensor({ { 1, 0 }, { 0, 1 } }, F64), { alpha = 2 })
    assert.are.same({ { 3, 5 }, { 7, 9 } }, t:totable())
  end)
end)

describe('out', function()
  local a, b = fused.tensor({ { 1, 2 }, { 3, 4 } }, F64), fused.tensor({ { 5, 6 }, { 7, 8 } }, F64)

  it('is written and returned, with no new storage', function()
    local out = fused.empty({ 2, 2 }, F64)
    local before = fused.debug.allocations()
    assert.are.equal(out, fused.add(a, b, { out = out }))
    assert.are.equal(out, a:matmul(b, { out = out }))
    assert.are.equal(0, fused.debug.allocations() - before)
    assert.are.same({ { 19, 22 }, { 43, 50 } }, out:totable())
    assert.are.same({ { 4, 6 } }, fused.sum(a, 1, { out = fused.empty({ 1, 2 }, F64) }):totable())
    assert.are.same({ { 1, 2, 5, 6 }, { 3, 4, 7, 8 } },
                    fused.cat({ a, b }, 2, { out = fused.empty({ 2, 4 }, F64) }):totable())
  end)

  it('of another shape is resized, unless it is a view', function()
    local out = fused.empty({ 7 }, F64)
    assert.are.equal(out, fused.mul(a, 2, { out = out }))
    assert.are.same({ 2, 2 }, out:shape())
    assert.are.same({ { 2, 4 }, { 6, 8 } }, out:totable())
    local base = fused.zeros({ 3, 3 }, F64)
    helper.assert_error(function() fused.add(a, b, { out = base:narrow(1, 1, 1) }) end,
                        "add: argument 'out' expected shape [2, 2] (the result's), got [1, 3]",
                        'a view is not resized')
  end)

  it('that is a strided view of the right shape is written through', function()
    local base = fused.zeros({ 2, 2 }, F64)
    fused.add(a, b, { out = base:t() })
    assert.are.same({ { 6, 10 }, { 8, 12 } }, base:totable())
  end)

  it('of another dtype is refused', function()
    helper.assert_error(function() fused.exp(a, { out = fused.empty({ 2, 2 }) }) end,
                        "exp: argument 'out' expected float64 on cpu (the result's), got float32 on cpu")
    helper.assert_error(function() fused.tanh(a, { out = 3 }) end,
                        "tanh: argument 'out' expected a tensor, got number")
  end)

  it('takes a list for the functions of several outputs', function()
    local x, h, c = fused.randn({ 3, 4 }, F64), fused.randn({ 3, 5 }, F64), fused.randn({ 3, 5 }, F64)
    local W, bias = fused.randn({ 15, 9 }, F64), fused.randn({ 15 }, F64)
    local F = fused.functional
    local h1, c1, ctx = F.lltm_forward(x, W, bias, h, c)
    local nh, nc = fused.empty({ 3, 5 }, F64), fused.empty({ 3, 5 }, F64)
    local before = fused.debug.allocations()
    local h2, c2, ctx2 = F.lltm_forward(x, W, bias, h, c, { out = { nh, nc, ctx } })
    assert.are.equal(0, fused.debug.allocations() - before)
    assert.are.equal(nh, h2); assert.are.equal(nc, c2); assert.are.equal(ctx, ctx2)
    helper.assert_close(h2, h1, 0, 'new_h'); helper.assert_close(c2, c1, 0, 'new_c')
  end)
end)

describe('module buffers', function()
  it('are kept while their call waits for its backward, then reused; :clone() keeps a copy', function()
    local linear = fused.nn.Linear(2, 2, F64)
    local y1 = linear:forward(fused.ones({ 1, 2 }, F64))
    local kept = y1:clone()
    local y2 = linear:forward(fused.zeros({ 1, 2 }, F64))
    helper.assert_close(y1, kept, 0, 'a waiting call\'s result')
    helper.assert_close(y2, linear.bias:view(1, 2), 0, 'y2')
    linear:backward(fused.ones({ 1, 2 }, F64))
    linear:backward(fused.ones({ 1, 2 }, F64))
    local y3 = linear:forward(fused.zeros({ 1, 2 }, F64))
    helper.assert_close(y1, y3, 0, 'the buffer of a call gone back through, reused')
    assert.is_true(helper.rel_error(kept, y3) > 0)
  end)

  it('feeding a cell its own state back gives the step-by-step result', function()
    local cell = fused.nn.LLTMCell(3, 4, F64)
    local x = fused.randn({ 2, 3 }, F64)
    local h, c = fused.zeros({ 2, 4 }, F64), fused.zeros({ 2, 4 }, F64)
    local F = fused.functional
    local want_h, want_c = F.lltm_forward(x, cell.weight, cell.bias, h, c)
    want_h, want_c = F.lltm_forward(x, cell.weight, cell.bias, want_h, want_c)
    h, c = cell:forward(x, h, c)
    h, c = cell:forward(x, h, c)
    helper.assert_close(h, want_h, 1e-15, 'h')
    helper.assert_close(c, want_c, 1e-15, 'c')
  end)
end)
