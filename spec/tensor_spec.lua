-- Constructors, properties and printing of tensors.
local helper = require 'spec.helper'
local fused = helper.fused

describe('tensors', function()
  it('constructors default to float32 on the cpu', function()
    for _, make in ipairs({ fused.zeros, fused.ones, fused.empty, fused.rand, fused.randn }) do
      local t = make({ 2, 3 })
      assert.are.equal('float32', t.dtype)
      assert.are.equal('cpu', t.device)
      assert.are.same({ 2, 3 }, t:shape())
    end
    assert.are.same({ { 0, 0 } }, fused.zeros({ 1, 2 }):totable())
    assert.are.same({ 1, 1, 1 }, fused.ones(3):totable())
    assert.are.same({ 2.5, 2.5 }, fused.full({ 2 }, 2.5, { dtype = 'float64' }):totable())
  end)

  it('shape, size, dim, numel, stride', function()
    local t = fused.zeros({ 2, 3, 4 }, { dtype = 'float64' })
    assert.are.same({ 2, 3, 4 }, t:shape())
    assert.are.equal(3, t:size(2))
    assert.are.equal(4, t:size(-1))
    assert.are.same({ 2, 3, 4 }, t:size())
    assert.are.equal(3, t:dim())
    assert.are.equal(24, t:numel())
    assert.are.same({ 12, 4, 1 }, t:stride())
    assert.are.equal('float64', t.dtype)
  end)

  it('fused.tensor takes nested tables and checks they are regular', function()
    local t = fused.tensor({ { { 1, 2 } }, { { 3, 4 } } })
    assert.are.same({ 2, 1, 2 }, t:shape())
    assert.are.same({ { { 1, 2 } }, { { 3, 4 } } }, t:totable())
    helper.assert_error(function() fused.tensor({ { 1, 2 }, { 3 } }) end, 'tensor', 'not regular', 'data[2]')
    helper.assert_error(function() fused.tensor({ { 1, 'x' } }) end, 'tensor', 'number', 'data[1][2]', 'string')
    helper.assert_error(function() fused.tensor('5') end, 'tensor', 'nested table', 'string')
  end)

  it('float32 rounds, float64 keeps every digit', function()
    assert.are.equal(0.1, fused.tensor({ 0.1 }, { dtype = 'float64' }):item())
    assert.are_not.equal(0.1, fused.tensor({ 0.1 }):item())
    assert.is_true(math.abs(fused.tensor({ 0.1 }):item() - 0.1) < 1e-8)
  end)

  it('item reads a tensor of one element of any shape, and names the size of another', function()
    assert.are.equal(-2.5, fused.tensor({ { { -2.5 } } }, { dtype = 'float64' }):item())
    helper.assert_error(function() fused.zeros(2, 3):item() end,
                        'item: expected a tensor of one element, got 6 of size [2, 3]')
  end)

  describe('tostring', function()
    it('shows values, then shape, dtype and device', function()
      local s = tostring(fused.tensor({ { 1.5, -2 }, { 3, 4.25 } }, { dtype = 'float64' }))
      assert.are.equal('  1.5000  -2.0000\n  3.0000   4.2500\n[fused.Tensor float64 cpu of size 2x2]', s)
      assert.are.equal('  1   2   3\n[fused.Tensor float32 cpu of size 3]', tostring(fused.tensor({ 1, 2, 3 })))
    end)

    it('prints 3-D tensors as slices, as Torch7 does', function()
      local s = tostring(fused.ones({ 2, 1, 2 }))
      assert.truthy(s:find('(1,.,.) = ', 1, true))
      assert.truthy(s:find('(2,.,.) = ', 1, true))
      assert.truthy(s:find('[fused.Tensor float32 cpu of size 2x1x2]', 1, true))
    end)

    it('uses scientific notation for large or tiny values', function()
      assert.truthy(tostring(fused.tensor({ 1e-7, 2e-7 })):find('e-07', 1, true))
      assert.truthy(tostring(fused.tensor({ 1.5e9 })):find('e+09', 1, true))
    end)

    it('cuts big tensors to their first and last entries', function()
      local s = tostring(fused.zeros({ 100, 100 }))
      local lines = select(2, s:gsub('\n', '\n')) + 1
      assert.is_true(lines <= 9, 'printed ' .. lines .. ' lines')
      assert.truthy(s:find('...', 1, true))
      assert.truthy(s:find('of size 100x100', 1, true))
      assert.is_true(#s < 1000)
    end)

    it('shows inf and nan', function()
      local s = tostring(fused.tensor({ 1, 0, -1 }) / 0)
      assert.truthy(s:find('inf', 1, true) and s:find('nan', 1, true), s)
    end)
  end)
end)
