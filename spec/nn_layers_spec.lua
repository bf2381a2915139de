-- nn.Sequential, nn.Tanh, nn.Sigmoid, nn.ReLU, nn.Dropout and nn.LayerNorm: hand-computed values,
-- gradcheck in float64, training and evaluation modes, printing, and their errors.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn

local F64 = { dtype = 'float64' }

local function ok_gradcheck(fn, inputs, opts)
  local ok, worst = fused.gradcheck(fn, inputs, opts)
  assert(ok, worst.message)
end

-- The Function-style pair gradcheck takes for a module without parameters.
local function as_function(module)
  return {
    forward = function(x) return module:forward(x), {} end,
    backward = function(_, d_y) return module:backward(d_y) end,
  }
end

local function close(actual, expected, tol)
  helper.assert_close(actual, fused.tensor(expected, F64), tol or 1e-12)
end

describe('nn.Tanh, nn.Sigmoid, nn.ReLU', function()
  local x = { { -2, -0.5, 0.25 }, { 0.5, 1, 3 } }
  local cases = {
    Tanh = { math.tanh, function(v) return 1 - math.tanh(v) ^ 2 end },
    Sigmoid = { function(v) return 1 / (1 + math.exp(-v)) end,
                function(v) local s = 1 / (1 + math.exp(-v)); return s * (1 - s) end },
    ReLU = { function(v) return math.max(v, 0) end, function(v) return v > 0 and 1 or 0 end },
  }
  for name, f in pairs(cases) do
    it(name .. ' computes f(x) and d_y ⊙ f\'(x) elementwise', function()
      local m = nn[name]()
      local y, d_y, want_y, want_d = nil, {}, {}, {}
      for i, row in ipairs(x) do
        want_y[i], want_d[i], d_y[i] = {}, {}, {}
        for j, v in ipairs(row) do
          d_y[i][j] = i + j
          want_y[i][j], want_d[i][j] = f[1](v), (i + j) * f[2](v)
        end
      end
      y = m:forward(fused.tensor(x, F64))
      close(y, want_y)
      close(m:backward(fused.tensor(d_y, F64)), want_d)
    end)

    it(name .. ' passes gradcheck', function()
      ok_gradcheck(as_function(nn[name]()), { fused.randn({ 3, 4 }, F64):add_(0.1) })
    end)
  end

  it('say which argument is wrong', function()
    helper.assert_error(function() nn.ReLU():forward(3) end, "ReLU:forward: argument 'input' expected a tensor, got number")
    local relu = nn.ReLU()
    relu:forward(fused.ones({ 2, 3 }))
    helper.assert_error(function() relu:backward(fused.ones({ 3, 2 })) end,
                        "ReLU:backward: argument 'd_output' expected shape [2, 3] (the output's), got [3, 2]")
    helper.assert_error(function() nn.Tanh():backward(fused.ones({ 1 })) end, 'no forward')
    helper.assert_error(function() nn.Sigmoid(2) end, 'Sigmoid: expected no arguments, got 1')
  end)
end)

describe('nn.Dropout', function()
  it('zeroes elements with probability p and scales the others by 1/(1-p)', function()
    fused.manual_seed(1)
    local drop = nn.Dropout(0.25)
    local y = drop:forward(fused.ones({ 200, 100 }, F64))
    local zeros = 0
    for _, v in ipairs(y:view(-1):totable()) do
      if v == 0 then zeros = zeros + 1 else assert.are.equal(1 / 0.75, v) end
    end
    assert.is_true(math.abs(zeros / 20000 - 0.25) < 0.02, 'fraction zeroed ' .. zeros / 20000)
    -- backward multiplies by the same mask
    helper.assert_close(drop:backward(fused.full({ 200, 100 }, 2, F64)), y * 2, 0)
  end)

  it('draws its mask from fused\'s generator: the same seed, the same mask', function()
    local x = fused.randn({ 4, 5 }, F64)
    fused.manual_seed(7)
    local a = nn.Dropout(0.5):forward(x):clone()
    fused.manual_seed(7)
    helper.assert_close(nn.Dropout(0.5):forward(x), a, 0)
  end)

  it('is the identity after eval(), and drops again after train()', function()
    local drop, x = nn.Dropout(0.9), fused.ones({ 50, 10 }, F64)
    assert.is_true(drop.training)
    assert.are.equal(drop, drop:eval())
    assert.is_false(drop.training)
    assert.are.equal(x, drop:forward(x))
    local d_y = fused.randn({ 50, 10 }, F64)
    assert.are.equal(d_y, drop:backward(d_y))
    drop:train()
    assert.is_true(drop.training)
    assert.is_true(drop:forward(x):sum() ~= 500)
    drop:train(false)
    assert.is_false(drop.training)
  end)

  it('passes gradcheck (its mask fixed by the seed)', function()
    local drop = nn.Dropout(0.3)
    local function forward(x) fused.manual_seed(3); return drop:forward(x), {} end
    ok_gradcheck({ forward = forward, backward = function(_, d_y) return drop:backward(d_y) end },
                 { fused.randn({ 3, 4 }, F64) })
  end)

  it('takes p in [0, 1], 0.5 by default, and prints it', function()
    assert.are.equal(0.5, nn.Dropout().p)
    assert.are.equal('fused.nn.Dropout(p=0.2)', tostring(nn.Dropout(0.2)))
    assert.are.equal(0, nn.Dropout(1):forward(fused.ones({ 3 })):sum())
    helper.assert_error(function() nn.Dropout(1.5) end, "Dropout: argument 'p' expected a probability in [0, 1], got 1.5")
    helper.assert_error(function() nn.Dropout('x') end, "argument 'p'", 'got the string "x"')
  end)
end)

describe('nn.LayerNorm', function()
  it('normalises each row over the last dim, then scales and shifts (hand-computed)', function()
    local norm = nn.LayerNorm(3, { eps = 0, dtype = 'float64' })
    norm.weight:copy_(fused.tensor({ 1, 2, 3 }, F64))
    norm.bias:copy_(fused.tensor({ 0, 1, -1 }, F64))
    -- each row has mean 2k and variance (2k)²·2/3 for rows k·(1, 2, 3): x̂ = (-1, 0, 1)·sqrt(3/2)
    local s = math.sqrt(1.5)
    local y = norm:forward(fused.tensor({ { 1, 2, 3 }, { 2, 4, 6 } }, F64))
    close(y, { { -s, 1, 3 * s - 1 }, { -s, 1, 3 * s - 1 } })
    -- d_y = 1: d_bias = column sums, d_weight = Σ x̂; g = d_y ⊙ weight = (1, 2, 3) is x̂·2/(3s) +
    -- 2 in both rows, a shift and scale of x̂, which normalisation removes: d_x = 0
    local d_x = norm:backward(fused.ones({ 2, 3 }, F64))
    close(norm.grad.bias, { 2, 2, 2 })
    close(norm.grad.weight, { -2 * s, 0, 2 * s })
    close(d_x, { { 0, 0, 0 }, { 0, 0, 0 } })
  end)

  it('gives d_x = rstd (d_y - mean d_y - x̂ mean(d_y x̂)) without affine (hand-computed)', function()
    local norm = nn.LayerNorm({ 3 }, { eps = 0, elementwise_affine = false, dtype = 'float64' })
    assert.is_nil(norm.weight)
    local s = math.sqrt(1.5) -- rstd of (1, 2, 3); x̂ = (−s, 0, s)
    close(norm:forward(fused.tensor({ { 1, 2, 3 } }, F64)), { { -s, 0, s } })
    -- d_y = (1, 0, 0): mean 1/3, mean(d_y x̂) = −s/3, so d_x = s·(1 − 1/3 − s²/3, −1/3, −1/3 + s²/3)
    close(norm:backward(fused.tensor({ { 1, 0, 0 } }, F64)), { { s / 6, -s / 3, s / 6 } })
  end)

  it('matches a plain-Lua reference with eps on 3-D inputs', function()
    local norm = nn.LayerNorm(4, F64)
    norm.weight:normal_(); norm.bias:normal_()
    local x = fused.randn({ 2, 3, 4 }, F64)
    local y = norm:forward(x)
    local w, b, want = norm.weight:totable(), norm.bias:totable(), {}
    for i, plane in ipairs(x:totable()) do
      want[i] = {}
      for j, row in ipairs(plane) do
        local mean, var = 0, 0
        for _, v in ipairs(row) do mean = mean + v / 4 end
        for _, v in ipairs(row) do var = var + (v - mean) ^ 2 / 4 end
        want[i][j] = {}
        for k, v in ipairs(row) do want[i][j][k] = (v - mean) / math.sqrt(var + 1e-5) * w[k] + b[k] end
      end
    end
    close(y, want)
  end)

  it('passes gradcheck for x, weight and bias', function()
    local norm = nn.LayerNorm(5, F64)
    ok_gradcheck({
      forward = function(x, W, b)
        norm.weight, norm.bias = W, b
        return norm:forward(x), {}
      end,
      backward = function(_, d_y)
        norm:zeroGradParameters()
        local d_x = norm:backward(d_y)
        return d_x, norm.grad.weight:clone(), norm.grad.bias:clone()
      end,
    }, { fused.randn({ 2, 3, 5 }, F64), fused.randn({ 5 }, F64), fused.randn({ 5 }, F64) })
    ok_gradcheck(as_function(nn.LayerNorm(4, { elementwise_affine = false, dtype = 'float64' })),
                 { fused.randn({ 3, 4 }, F64) })
  end)

  it('has PyTorch\'s parameter names and prints its options', function()
    assert.are.same({ 'bias', 'weight' }, helper.sorted_keys(nn.LayerNorm(3):state_dict()))
    assert.are.equal('fused.nn.LayerNorm(8, eps=1e-05, elementwise_affine=true)', tostring(nn.LayerNorm(8)))
  end)

  it('says which argument or option is wrong', function()
    helper.assert_error(function() nn.LayerNorm(4, { epsilon = 1 }) end,
                        "LayerNorm: unknown option 'epsilon' (expected one of: eps, elementwise_affine, dtype, device)")
    helper.assert_error(function() nn.LayerNorm(0) end, "LayerNorm: argument 'normalized_shape' expected a positive integer, got 0")
    helper.assert_error(function() nn.LayerNorm(4, { eps = -1 }) end, "option 'eps' expected a number >= 0, got -1")
    helper.assert_error(function() nn.LayerNorm(4, { elementwise_affine = 1 }) end, "option 'elementwise_affine' expected a boolean")
    helper.assert_error(function() nn.LayerNorm(4):forward(fused.ones({ 2, 3 })) end,
                        "LayerNorm:forward: argument 'input' expected a last dim of 4 (normalized_shape), got shape [2, 3]")
  end)
end)

describe('nn.Sequential', function()
  local function model()
    return nn.Sequential():add(nn.Linear(4, 8, F64)):add(nn.Tanh()):add(nn.Linear(8, 2, F64))
  end

  it('chains forward, and backward from the last module to the first', function()
    local m, x = model(), fused.randn({ 3, 4 }, F64)
    local l1, act, l2 = m.modules[1], m.modules[2], m.modules[3]
    local y = m:forward(x)
    helper.assert_close(y, l2:forward(act:forward(l1:forward(x)):clone()), 1e-14, 'forward')
    m:zeroGradParameters()
    local d_y = fused.randn({ 3, 2 }, F64)
    local d_x = m:backward(d_y):clone()
    m:forward(x)
    m:zeroGradParameters()
    helper.assert_close(d_x, l1:backward(act:backward(l2:backward(d_y))), 1e-14, 'backward')
  end)

  it('passes gradcheck for the input and every parameter', function()
    local m = model()
    local params = m:parameters()
    ok_gradcheck({
      forward = function(x, ...)
        local names = {}
        for name in m:named_parameters() do names[#names + 1] = name end
        local given = { ... }
        for i, name in ipairs(names) do
          local k, field = name:match('^(%d+)%.(%a+)$')
          m.modules[tonumber(k) + 1][field] = given[i]
        end
        return m:forward(x), {}
      end,
      backward = function(_, d_y)
        m:zeroGradParameters()
        local d_x = m:backward(d_y)
        local _, grads = m:parameters()
        local out = { d_x }
        for i, g in ipairs(grads) do out[i + 1] = g:clone() end
        return unpack(out)
      end,
    }, { fused.randn({ 3, 4 }, F64), unpack(params) })
  end)

  it('names parameters by position from 0, as PyTorch, and loads its own state_dict', function()
    local m = model()
    local names = {}
    for name in m:named_parameters() do names[#names + 1] = name end
    assert.are.same({ '0.weight', '0.bias', '2.weight', '2.bias' }, names)
    local params = m:parameters()
    assert.are.equal(m.modules[3].weight, params[3])
    local other = model()
    other:load_state_dict(m:state_dict())
    helper.assert_close(other.modules[3].bias, m.modules[3].bias, 0)
  end)

  it('takes its modules as arguments too, and rejects what is not a module', function()
    local m = nn.Sequential(nn.ReLU(), nn.Tanh())
    assert.are.equal(2, #m.modules)
    helper.assert_error(function() nn.Sequential():add(42) end,
                        "Sequential:add: argument 'module' expected a fused.nn module, got number")
    helper.assert_error(function() nn.Sequential({}) end, "got a table that is not one")
  end)

  it('sets training and evaluation mode on every module inside', function()
    local inner = nn.Dropout(0.5)
    local m = nn.Sequential(nn.ReLU(), nn.Sequential(inner))
    assert.are.equal(m, m:eval())
    assert.is_false(inner.training)
    assert.is_false(m.training)
    assert.are.equal(m, m:train())
    assert.is_true(inner.training)
    assert.is_true(m.training)
  end)

  it('converts every module with :to', function()
    local m = model():float()
    assert.are.equal('float32', m.modules[3].weight.dtype)
  end)
end)

describe('tostring(module)', function()
  it('shows a model\'s structure, as Torch7 prints it', function()
    local m = nn.Sequential():add(nn.Linear(4, 8)):add(nn.ReLU()):add(nn.Dropout(0.5))
      :add(nn.Sequential(nn.Tanh()))
    assert.are.equal([[
fused.nn.Sequential {
  (1): fused.nn.Linear(4 -> 8)
  (2): fused.nn.ReLU
  (3): fused.nn.Dropout(p=0.5)
  (4): fused.nn.Sequential {
    (1): fused.nn.Tanh
  }
}]], tostring(m))
  end)

  it('shows each module\'s sizes, and the children held in fields by name', function()
    assert.are.equal('fused.nn.LLTM(input_size=32, hidden_size=128)', tostring(nn.LLTM(32, 128)))
    assert.are.equal('fused.nn.LSTM(input_size=3, hidden_size=4, num_layers=2, bidirectional=true)',
                     tostring(nn.LSTM(3, 4, { num_layers = 2, bidirectional = true })))
    assert.are.equal('fused.nn.GRUCell(input_size=3, hidden_size=4)', tostring(nn.GRUCell(3, 4)))
    assert.are.equal('fused.nn.LLTMCellComposed(input_size=3, hidden_size=4)', tostring(nn.LLTMCellComposed(3, 4)))
    assert.are.equal('fused.nn.Embedding(num_embeddings=10, embedding_dim=3)', tostring(nn.Embedding(10, 3)))
    assert.are.equal('fused.nn.MSELoss', tostring(nn.MSELoss()))
    assert.are.equal('fused.nn.Recurrent {\n  (cell): fused.nn.LLTMCell(input_size=2, hidden_size=5)\n}',
                     tostring(nn.Recurrent(nn.LLTMCell(2, 5))))
  end)

  it('shows the parameter shapes of a module that says nothing else', function()
    local Custom = require('fused.nn.Module'):extend('Custom')
    function Custom:__init() self.weight = fused.zeros({ 2, 3 }) end
    assert.are.equal('fused.nn.Custom(weight 2x3)', tostring(Custom()))
  end)
end)
