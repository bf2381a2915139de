-- A tensor used as a Lua value: every operator either computes element-wise or raises an error
-- that says what to do instead, never the FFI's words about 'struct fused_tensor'.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

-- err, and the message must not mention the FFI's struct.
local function clear_error(f, ...)
  err(f, ...)
  local _, msg = pcall(f)
  assert(not tostring(msg):find('struct', 1, true), 'FFI internals leak: ' .. tostring(msg))
end

describe('tensor operators', function()
  local t = fused.tensor({ 1, 2, 4 }, { dtype = 'float64' })

  it('a number on the left computes element-wise', function()
    assert.are.same({ 1, 0, -2 }, (2 - t):totable())
    assert.are.same({ 2, 1, 0.5 }, (2 / t):totable())
    assert.are.same({ 2, 4, 16 }, (2 ^ t):totable())
    assert.are.same({ 3, 4, 6 }, (2 + t):totable())
    assert.are.same({ 2, 4, 8 }, (2 * t):totable())
    assert.are.same({ 1, 4, 16 }, (t ^ 2):totable())
    assert.are.same({ -1, -2, -4 }, (-t):totable())
  end)

  it('other operands name the op and what came', function()
    clear_error(function() return t + 'a' end, 'add', "'b'", 'expected a tensor or a number', 'got string')
    clear_error(function() return {} ^ t end, 'pow', "'a'", 'got table')
    clear_error(function() return true * t end, 'mul', "'a'", 'got boolean')
    clear_error(function() return t / nil end, 'div', "'b'", 'got nil')
  end)

  it('operators with no tensor meaning say so', function()
    clear_error(function() return t % 2 end, 'fused.Tensor', '% is not supported')
    clear_error(function() return 2 % t end, 'fused.Tensor', '% is not supported')
    clear_error(function() return t < t end, 'fused.Tensor', '< is not supported', 'a:lt(b)')
    clear_error(function() return t <= 1 end, 'fused.Tensor', '<= is not supported')
    clear_error(function() return 1 > t end, 'fused.Tensor', '< is not supported')
    clear_error(function() return t .. 'x' end, 'fused.Tensor', 'tostring(t)')
    clear_error(function() return 'x' .. t end, 'fused.Tensor', 'tostring(t)')
    clear_error(function() return #t end, 'fused.Tensor', 't:size(1)')
    clear_error(function() return t(1) end, 'fused.Tensor', 'not callable')
  end)

  it('== is identity, so comparing with nil or a number is false', function()
    assert.is_true(t == t)
    assert.is_false(t == t:clone())
    assert.is_false(t == nil)
    assert.is_false(t == 1)
  end)

  it('unknown fields and indices out of range are errors, not nil', function()
    clear_error(function() return t.nonexistent end, "fused.Tensor has no method or property 'nonexistent'")
    clear_error(function() return t:nonexistent() end, "fused.Tensor has no method or property 'nonexistent'")
    clear_error(function() return t.nonexistent_method() end, "'nonexistent_method'")
    clear_error(function() return t[99] end, 'index 99 is out of range for dim 1')
    clear_error(function() t[99] = 5 end, 'index 99 is out of range for dim 1')
    clear_error(function() t.dtype = 'float32' end, "cannot set field 'dtype'")
  end)

  it("Torch7's t:storage() says what to use instead", function()
    clear_error(function() return t:storage() end, 'fused.Tensor: t:storage() is not supported',
                't:contiguous()', 't.data')
  end)

  it('a method called with . instead of : says so', function()
    clear_error(function() return t.size(1) end, 'fused.Tensor.size', 'got number', 't:size(...)')
    clear_error(function() return t.shape() end, 'fused.Tensor.shape', 'got nil')
    clear_error(function() return t.exp() end, 'exp', 'got nil')
  end)
end)

describe('common functions given the wrong types', function()
  local t = fused.zeros({ 2, 3 })

  it('numbers where numbers go', function()
    clear_error(function() fused.full({ 2 }, 'x') end, 'full', "'value'", 'expected a number', 'got string')
    clear_error(function() t:fill(nil) end, 'fill', "'value'", 'got nil')
    clear_error(function() t:uniform('a') end, 'uniform', "'low'", 'got string')
    clear_error(function() t:normal(0, {}) end, 'normal', "'std'", 'got table')
    clear_error(function() t:elu('x') end, 'elu', "'alpha'", 'got string')
    clear_error(function() t:exp(2) end, 'exp', 'expected one tensor', 'second argument')
    clear_error(function() fused.set_num_threads('x') end, 'set_num_threads', "'n'", 'got x')
    clear_error(function() fused.addmm(fused.zeros({ 3 }), t, fused.zeros({ 3, 3 }), { beta = 'x' }) end,
                'addmm', "option 'beta' expected a number", 'got string')
  end)

  it('lists with holes', function()
    clear_error(function() fused.cat({ t, nil, t }, 1) end, 'cat', "'tensors'", 'got {tensor, nil, tensor}')
    clear_error(function() fused.optim.clip_grad_norm({ t, nil, t }, 1) end, 'clip_grad_norm', "'grads'",
                'got {tensor, nil, tensor}')
    clear_error(function() fused.optim.SGD({ t, nil, t }, { t, nil, t }) end, 'SGD', "'params'",
                'got {tensor, nil, tensor}')
    clear_error(function() fused.gradcheck({ forward = print, backward = print }, { t, nil, t }) end,
                'gradcheck', "'inputs'", 'got {tensor, nil, tensor}')
  end)
end)
