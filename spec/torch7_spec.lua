-- What a Torch7 user types in the first hour: the class constructors, the Torch7 names of
-- tensor methods, and a module of their own written with Torch7's protocol (updateOutput,
-- updateGradInput, accGradParameters) trained one SGD step inside Sequential.
local helper = require 'spec.helper'
local fused = helper.fused

describe('Torch7 constructors', function()
  it('take sizes (zeros) or a Lua table of values, in their class dtype', function()
    local cases = { { fused.Tensor, 'float32' }, { fused.FloatTensor, 'float32' },
                    { fused.DoubleTensor, 'float64' }, { fused.LongTensor, 'int64' } }
    for _, case in ipairs(cases) do
      local make, dtype = case[1], case[2]
      local t = make(2, 3)
      assert.are.equal(dtype, t.dtype)
      assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, t:totable())
      assert.are.same({ 4 }, make(fused.Size({ 4 })):shape())
      local v = make({ { 1, 2 }, { 3, 4 } })
      assert.are.equal(dtype, v.dtype)
      assert.are.same({ { 1, 2 }, { 3, 4 } }, v:totable())
    end
    assert.are.equal('fused.DoubleTensor', fused.DoubleTensor(1):type())
    assert.are.same({ true, false }, fused.BoolTensor({ true, false }):totable())
  end)

  it('fused.Tensor stays the table of methods and is_tensor is unchanged', function()
    assert.are.same({ 3 }, fused.Tensor.add(fused.tensor({ 1 }), fused.tensor({ 2 })):totable())
    assert.is_true(fused.is_tensor(fused.Tensor(1)))
    assert.is_false(fused.is_tensor(fused.Tensor))
    assert.are.same({ 0 }, fused.Tensor():shape()) -- Torch7's empty tensor
    helper.assert_error(function() fused.LongTensor('x') end, "LongTensor: argument 'sizes' expected sizes", 'got string')
    helper.assert_error(function() fused.FloatTensor(2, 'x') end, "FloatTensor: argument 'shape' expected integer sizes from 0 to below 2^53, got string at position 2")
    helper.assert_error(function() fused.DoubleTensor(2, -1) end, "DoubleTensor: argument 'shape' expected integer sizes from 0 to below 2^53, got -1 at position 2")
  end)

  it('nDimension, nElement, long and bool are dim, numel and the conversions', function()
    local t = fused.tensor({ { 1.0, -2.0, 0.0 }, { 4.0, 5.0, 6.0 } }, { dtype = 'float64' })
    assert.are.equal(t:dim(), t:nDimension())
    assert.are.equal(2, t:nDimension())
    assert.are.equal(6, t:nElement())
    assert.are.equal('int64', t:long().dtype)
    assert.are.same({ { 1, -2, 0 }, { 4, 5, 6 } }, t:long():totable())
    assert.are.same({ { true, true, false }, { true, true, true } }, t:bool():totable())
    local l = t:long()
    assert.are.equal(l, l:long()) -- already int64: itself, as float() on a float32
  end)
end)

-- y = x * weight (a weight per feature), written as a Torch7 user would.
local function scale_module()
  local Scale = fused.nn.Module:extend('Scale')
  function Scale:__init(n, values)
    fused.nn.Module.__init(self)
    self.weight = fused.tensor(values, { dtype = 'float64' })
    self.gradWeight = fused.zeros(n, { dtype = 'float64' })
  end
  function Scale:updateOutput(input)
    self.output = input * self.weight
    return self.output
  end
  function Scale:updateGradInput(input, gradOutput)
    self.gradInput = gradOutput * self.weight
    return self.gradInput
  end
  function Scale:accGradParameters(input, gradOutput, scale)
    self.gradWeight:add_((gradOutput * input):sum(1):view(-1) * scale)
  end
  return Scale
end

describe('a module with Torch7\'s protocol', function()
  it('trains one SGD step inside Sequential as the plain-Lua reference does', function()
    local Scale = scale_module()
    local w1, w2 = { 0.5, -1, 2 }, { 1.5, 0.25, -0.75 }
    local a, b = Scale(3, w1), Scale(3, w2)
    local model = fused.nn.Sequential():add(a):add(b)
    local x = { { 1, 2, 3 }, { -1, 0.5, 4 } }
    local target = { { 0, 1, 0 }, { 2, 0, -1 } }
    local params, grads = model:parameters()
    assert.are.equal(2, #params)
    assert.are.equal(a.weight, params[1])
    assert.are.equal(b.gradWeight, grads[2])

    local input = fused.tensor(x, { dtype = 'float64' })
    local tgt = fused.tensor(target, { dtype = 'float64' })
    local criterion = fused.nn.MSELoss()
    local optimizer = fused.optim.SGD(params, grads, { lr = 0.1 })
    model:zeroGradParameters()
    local y = model:forward(input)
    criterion:forward(y, tgt)
    local d_x = model:backward(criterion:backward(y, tgt))
    optimizer:step()

    -- The reference: y = x w1 w2, L = mean (y - t)^2 over the 6 elements.
    local g1, g2, dx = { 0, 0, 0 }, { 0, 0, 0 }, {}
    for r = 1, 2 do
      dx[r] = {}
      for j = 1, 3 do
        local yj = x[r][j] * w1[j] * w2[j]
        local dy = 2 * (yj - target[r][j]) / 6
        g1[j] = g1[j] + dy * x[r][j] * w2[j]
        g2[j] = g2[j] + dy * x[r][j] * w1[j]
        dx[r][j] = dy * w2[j] * w1[j]
      end
    end
    local new1, new2 = {}, {}
    for j = 1, 3 do new1[j], new2[j] = w1[j] - 0.1 * g1[j], w2[j] - 0.1 * g2[j] end
    local double = { dtype = 'float64' }
    helper.assert_close(a.weight, fused.tensor(new1, double), 1e-12, 'weight 1')
    helper.assert_close(b.weight, fused.tensor(new2, double), 1e-12, 'weight 2')
    helper.assert_close(d_x, fused.tensor(dx, double), 1e-12, 'gradInput')
    -- forward and backward leave output and gradInput on each module
    assert.are.equal(y, b.output)
    assert.are.equal(d_x, a.gradInput)
    helper.assert_close(a.output, input * fused.tensor(w1, double), 1e-12, 'a.output')
  end)

  it('takes Torch7\'s backward(input, gradOutput, scale) too', function()
    local m = scale_module()(2, { 2, 3 })
    local x = fused.tensor({ { 1, 1 } }, { dtype = 'float64' })
    m:forward(x)
    m:backward(x, fused.ones(1, 2, { dtype = 'float64' }), 0.5)
    assert.are.same({ 0.5, 0.5 }, m.gradWeight:totable())
    assert.are.same({ { 2, 3 } }, m.gradInput:totable())
  end)

  it('without updateOutput, or backward before forward, is an error', function()
    local Bare = fused.nn.Module:extend('Bare')
    helper.assert_error(function() Bare():forward(fused.zeros(1)) end, 'Bare:forward is not implemented')
    helper.assert_error(function() Bare():backward(fused.zeros(1)) end, 'Bare:backward is not implemented')
    helper.assert_error(function() scale_module()(1, { 1 }):backward(fused.zeros(1)) end,
                        'Scale:backward: no forward to go back through (call forward first)')
  end)
end)
