-- Factories: sizes as a list or as numbers (an options table still last), arange, linspace, eye.
local helper = require 'spec.helper'
local fused = helper.fused

describe('factories', function()
  it('take the sizes as a list or as numbers, with options last', function()
    for _, make in ipairs({ 'zeros', 'ones', 'empty', 'rand', 'randn' }) do
      assert.are.same({ 2, 3 }, fused[make](2, 3):shape())
      assert.are.same({ 2, 3 }, fused[make]({ 2, 3 }):shape())
      assert.are.same({ 5 }, fused[make](5):shape())
      local t = fused[make](2, 1, 3, { dtype = 'float64' })
      assert.are.same({ 2, 1, 3 }, t:shape())
      assert.are.equal('float64', t.dtype)
    end
    assert.are.same({ { 1, 1 } }, fused.ones(1, 2, { dtype = 'int64' }):totable())
  end)

  it('say what is wrong with their arguments', function()
    helper.assert_error(function() fused.zeros(2, 'x', 3) end, 'zeros', 'expected the sizes then an options table')
    helper.assert_error(function() fused.ones({ 2 }, {}, {}) end, 'ones', 'expected the sizes then an options table')
    helper.assert_error(function() fused.zeros(2, -1) end, "zeros: argument 'shape'", 'got -1 at position 2')
    helper.assert_error(function() fused.zeros(2, { dtpye = 'float64' }) end, "unknown option 'dtpye'")
  end)

  it('arange ends before stop, as PyTorch; int64 for integers, else float32', function()
    local a = fused.arange(5)
    assert.are.equal('int64', a.dtype)
    assert.are.same({ 0, 1, 2, 3, 4 }, a:totable())
    assert.are.same({ 2, 3, 4 }, fused.arange(2, 5):totable())
    assert.are.same({ 1, 3, 5 }, fused.arange(1, 6, 2):totable())
    assert.are.same({ 5, 3 }, fused.arange(5, 1, -2):totable())
    local f = fused.arange(0, 1, 0.25)
    assert.are.equal('float32', f.dtype)
    assert.are.same({ 0, 0.25, 0.5, 0.75 }, f:totable())
    assert.are.equal('float64', fused.arange(3, { dtype = 'float64' }).dtype)
    helper.assert_error(function() fused.arange(1, 5, 0) end, "arange: argument 'step' expected a nonzero number")
    helper.assert_error(function() fused.arange(3, 1) end, 'arange: the range from 3 to 1 runs against the step 1')
    assert.are.same({ 0 }, fused.arange(2, 2):shape()) -- empty, as PyTorch's
    helper.assert_error(function() fused.arange('a') end, 'arange: argument 1 expected a number')
  end)

  it('linspace includes both ends; eye is the identity', function()
    for _, dtype in ipairs({ 'float32', 'float64' }) do
      local l = fused.linspace(-1, 1, 5, { dtype = dtype })
      assert.are.equal(dtype, l.dtype)
      assert.are.same({ -1, -0.5, 0, 0.5, 1 }, l:totable())
      assert.are.same({ 3 }, fused.linspace(3, 7, 1, { dtype = dtype }):totable())
      assert.are.same({ { 1, 0, 0 }, { 0, 1, 0 } }, fused.eye(2, 3, { dtype = dtype }):totable())
      assert.are.same({ { 1, 0 }, { 0, 1 } }, fused.eye(2, { dtype = dtype }):totable())
    end
    -- 0.1 steps: the last value is stop exactly
    assert.are.equal(1, fused.linspace(0, 1, 11, { dtype = 'float64' }):totable()[11])
    helper.assert_error(function() fused.linspace(0, 1, 0) end, "linspace: argument 'steps' expected a positive integer")
    helper.assert_error(function() fused.eye(2.5) end, 'eye: expected positive integer sizes, got 2.5')
  end)

  it('full takes the shape as a list', function()
    assert.are.same({ { 7, 7 } }, fused.full({ 1, 2 }, 7):totable())
  end)
end)
