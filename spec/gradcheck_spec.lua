-- fused.gradcheck on small user-written Function-style ops: it passes a right backward, finds
-- a wrong one and says where, leaves its inputs alone, and rejects bad arguments.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

-- out = a * b + a (elementwise); the ctx keeps the inputs.
local function product(wrong_at)
  return {
    forward = function(a, b) return a * b + a, { a = a, b = b } end,
    backward = function(ctx, grad)
      local d_a = grad * (ctx.b + 1)
      if wrong_at then
        local v = d_a:view(-1):totable()
        v[wrong_at] = v[wrong_at] + 0.5
        d_a = fused.tensor(v, { dtype = 'float64' }):view(d_a:shape())
      end
      return d_a, grad * ctx.a
    end,
  }
end

describe('gradcheck', function()
  local o = { dtype = 'float64' }

  it('passes a right backward', function()
    local inputs = { fused.randn({ 2, 3 }, o), fused.randn({ 2, 3 }, o) }
    local ok, worst = fused.gradcheck(product(), inputs)
    assert.is_true(ok, worst.message)
    assert(worst.error <= 1e-5)
  end)

  it('finds a wrong element and says where', function()
    local inputs = { fused.randn({ 2, 3 }, o), fused.randn({ 2, 3 }, o) }
    local ok, worst = fused.gradcheck(product(5), inputs)
    assert.is_false(ok)
    assert.are.equal(1, worst.input)
    assert.are.same({ 2, 2 }, worst.index)
    assert(worst.message:find('mismatch', 1, true), worst.message)
  end)

  it('checks float32 inputs in float64, and only the inputs in wrt', function()
    local a, b = fused.randn({ 4 }), fused.randn({ 4 })
    local before = a:totable()
    local ok = fused.gradcheck(product(1), { a, b }, { wrt = { 2 } })
    assert.is_true(ok)
    assert.are.same(before, a:totable())
    assert.are.equal('float32', a.dtype)
  end)

  it('rejects what is not an op or a list of inputs', function()
    err(function() fused.gradcheck(function() end, {}) end, 'gradcheck', "'fn'",
        'forward and backward')
    err(function() fused.gradcheck(product(), nil) end, 'gradcheck', "'inputs'", 'nil')
    err(function() fused.gradcheck(product(), { fused.randn({ 2 }), 3 }, { wrt = { 2 } }) end,
        'gradcheck', 'input 2 is not a tensor')
  end)
end)
