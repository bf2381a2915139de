-- PyTorch's module habits: train() / eval() and the training flag, over every module inside;
-- zero_grad(); calling a module is its forward; nn.Linear without a bias.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn
local close, err = helper.assert_close, helper.assert_error

local F64 = { dtype = 'float64' }

describe('module modes', function()
  it('train() and eval() set training on the module and every module inside', function()
    local drop, lstm = nn.Dropout(0.5), nn.LSTM(2, 3, { num_layers = 2, dropout = 0.5 })
    local m = nn.Sequential(nn.Linear(2, 2), nn.Sequential(drop), lstm)
    for _, x in ipairs({ m, drop, lstm }) do assert.is_true(x.training) end
    assert.are.equal(m, m:eval())
    for _, x in ipairs({ m, drop, lstm }) do assert.is_false(x.training) end
    assert.are.equal(m, m:train())
    for _, x in ipairs({ m, drop, lstm }) do assert.is_true(x.training) end
    m:train(false)
    for _, x in ipairs({ m, drop, lstm }) do assert.is_false(x.training) end
  end)

  it('zero_grad() zeroes every parameter gradient, children\'s too', function()
    fused.manual_seed(1)
    local m = nn.Sequential(nn.Linear(3, 4, F64), nn.Tanh(), nn.Linear(4, 2, F64))
    local x = fused.randn({ 5, 3 }, F64)
    m:forward(x)
    m:backward(fused.ones({ 5, 2 }, F64))
    local _, grads = m:parameters()
    assert.are.equal(4, #grads)
    for _, g in ipairs(grads) do assert.is_true(g:abs():max() > 0) end
    assert.are.equal(m, m:zero_grad())
    for _, g in ipairs(grads) do assert.are.equal(0, g:abs():max()) end
  end)

  it('m(...) calls m:forward(...)', function()
    fused.manual_seed(2)
    local linear, x = nn.Linear(3, 2, F64), fused.randn({ 4, 3 }, F64)
    local want = linear:forward(x):clone()
    close(linear(x), want, 0, 'Linear')
    local seq = nn.Sequential(linear, nn.ReLU())
    close(seq(x), want:relu(), 0, 'Sequential')
  end)
end)

describe('nn.Linear without a bias', function()
  it('computes x·Wᵀ, names only its weight, and passes gradcheck', function()
    fused.manual_seed(3)
    local linear = nn.Linear(4, 3, { bias = false, dtype = 'float64' })
    assert.is_nil(linear.bias)
    local names = {}
    for name in linear:named_parameters() do names[#names + 1] = name end
    assert.are.same({ 'weight' }, names)
    assert.are.equal('fused.nn.Linear(4 -> 3, bias=false)', tostring(linear))
    local x = fused.randn({ 5, 4 }, F64)
    close(linear:forward(x), fused.matmul(x, linear.weight:t()), 1e-15, 'y')
    local f = {
      forward = function(xs, w)
        linear.weight:copy(w)
        return linear:forward(xs):clone(), 'ctx'
      end,
      backward = function(_, d_y)
        linear:zero_grad()
        return linear:backward(d_y):clone(), linear.grad.weight:clone()
      end,
    }
    local ok, worst = fused.gradcheck(f, { fused.randn({ 2, 3, 4 }, F64), fused.randn({ 3, 4 }, F64) })
    assert.is_true(ok, worst and worst.message)
    err(function() nn.Linear(4, 3, { bias = 0 }) end, "Linear: option 'bias' expected a boolean, got number")
  end)

  it('loads the state_dict of a PyTorch Linear(bias=False): weight alone', function()
    local linear = nn.Linear(2, 2, { bias = false })
    local w = fused.tensor({ { 1, 2 }, { 3, 4 } })
    linear:load_state_dict({ weight = w })
    close(linear.weight, w, 0, 'weight')
    err(function() linear:load_state_dict({ weight = w, bias = fused.zeros({ 2 }) }) end,
        "unexpected key 'bias'")
  end)
end)
