-- nn.Linear, nn.Embedding, nn.MSELoss and nn.CrossEntropyLoss: against plain-Lua references,
-- by numeric gradcheck in float64, and their errors.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn

local F64 = { dtype = 'float64' }

-- Plain-Lua references on nested tables.
local function matmul_t(x, W) -- x N×in, W out×in: x·Wᵀ
  local y = {}
  for n = 1, #x do
    y[n] = {}
    for o = 1, #W do
      local acc = 0
      for i = 1, #W[1] do acc = acc + x[n][i] * W[o][i] end
      y[n][o] = acc
    end
  end
  return y
end

local function log_softmax_row(row)
  local max = -math.huge
  for _, v in ipairs(row) do max = math.max(max, v) end
  local sum = 0
  for _, v in ipairs(row) do sum = sum + math.exp(v - max) end
  local out = {}
  for k, v in ipairs(row) do out[k] = v - max - math.log(sum) end
  return out
end

local function ok_gradcheck(fn, inputs, opts)
  local ok, worst = fused.gradcheck(fn, inputs, opts)
  assert(ok, worst.message)
end

describe('nn.Linear', function()
  it('computes x·Wᵀ + b on B x in inputs, as a plain-Lua reference', function()
    local linear = nn.Linear(5, 3, F64)
    local x = fused.randn({ 4, 5 }, F64)
    local want = matmul_t(x:totable(), linear.weight:totable())
    local b = linear.bias:totable()
    for n = 1, 4 do for o = 1, 3 do want[n][o] = want[n][o] + b[o] end end
    helper.assert_close(linear:forward(x), fused.tensor(want, F64), 1e-14, 'y')
  end)

  it('applies to every step of a T x B x in input', function()
    local linear = nn.Linear(5, 3, F64)
    local xs = fused.randn({ 6, 2, 5 }, F64)
    local ys = linear:forward(xs)
    assert.are.same({ 6, 2, 3 }, ys:shape())
    helper.assert_close(ys:select(1, 4), linear:forward(xs:select(1, 4):contiguous()), 1e-15, 'step 4')
  end)

  it('starts uniform in ±1/sqrt(in_features), in the requested dtype', function()
    local linear = nn.Linear(16, 8)
    assert.are.equal('float32', linear.weight.dtype)
    for _, t in ipairs({ linear.weight, linear.bias }) do
      for _, v in ipairs(t:view(-1):totable()) do assert(math.abs(v) <= 0.25) end
    end
  end)

  it('passes gradcheck for x, weight and bias, on 2-D and 3-D inputs', function()
    for _, shape in ipairs({ { 3, 4 }, { 2, 3, 4 } }) do
      local linear = nn.Linear(4, 2, F64)
      ok_gradcheck({
        forward = function(x, W, b)
          linear.weight, linear.bias = W, b
          return linear:forward(x), {}
        end,
        backward = function(_, d_y)
          linear:zeroGradParameters()
          local d_x = linear:backward(d_y)
          return d_x, linear.grad.weight:clone(), linear.grad.bias:clone()
        end,
      }, { fused.randn(shape, F64), linear.weight, linear.bias })
    end
  end)

  it('adds into grad.weight and grad.bias over two backward calls', function()
    local linear = nn.Linear(3, 2, F64)
    local x, d_y = fused.randn({ 4, 3 }, F64), fused.randn({ 4, 2 }, F64)
    linear:forward(x)
    linear:backward(d_y)
    local once_w, once_b = linear.grad.weight:clone(), linear.grad.bias:clone()
    linear:forward(x) -- backward runs once per forward
    linear:backward(d_y)
    helper.assert_close(linear.grad.weight, once_w * 2, 1e-15, 'gradWeight')
    helper.assert_close(linear.grad.bias, once_b * 2, 1e-15, 'gradBias')
  end)

  it('float32 agrees with float64', function()
    local linear = nn.Linear(7, 5, F64)
    local x = fused.randn({ 9, 7 }, F64)
    local y64 = linear:forward(x)
    helper.assert_close(linear:float():forward(x:float()), y64, 1e-6, 'y')
  end)

  it('rejects bad sizes and inputs with clear errors', function()
    helper.assert_error(function() nn.Linear(0, 2) end, "Linear: argument 'in_features' expected a positive integer, got 0")
    helper.assert_error(function() nn.Linear(2, 1.5) end, "'out_features'", 'got 1.5')
    local linear = nn.Linear(3, 2)
    helper.assert_error(function() linear:forward(fused.randn({ 4, 5 })) end,
                        "Linear:forward: argument 'input' expected B x 3 or T x B x 3, got [4, 5]")
    helper.assert_error(function() linear:forward(fused.randn({ 3 })) end, 'got [3]')
    helper.assert_error(function() linear:forward('x') end, "argument 'input' expected a tensor, got string")
    helper.assert_error(function() linear:backward(fused.randn({ 4, 2 })) end, 'no forward to go back through')
    linear:forward(fused.randn({ 4, 3 }))
    helper.assert_error(function() linear:backward(fused.randn({ 5, 2 })) end,
                        "Linear:backward: argument 'd_output' expected shape [4, 2] (the output's), got [5, 2]")
    helper.assert_error(function() linear:backward(fused.randn({ 4, 2 }, F64)) end,
                        "Linear:backward: argument 'd_output' expected float32 on cpu (the module's), got float64")
  end)
end)

describe('nn.Embedding', function()
  it('picks rows for indices given as a nested Lua table or as a tensor', function()
    local embed = nn.Embedding(5, 3, F64)
    local w = embed.weight:totable()
    local y = embed:forward({ { 1, 5 }, { 3, 3 } })
    assert.are.same({ 2, 2, 3 }, y:shape())
    assert.are.same({ { w[1], w[5] }, { w[3], w[3] } }, y:totable())
    assert.are.same({ w[2], w[4] }, embed:forward(fused.tensor({ 2, 4 }, { dtype = 'int64' })):totable())
  end)

  it('starts normal(0, 1)', function()
    local embed = nn.Embedding(100, 50, F64)
    local v = embed.weight:view(-1)
    local mean = v:sum() / v:numel()
    local var = ((v - mean) * (v - mean)):sum() / v:numel()
    assert(math.abs(mean) < 0.05 and math.abs(var - 1) < 0.05, string.format('mean %g var %g', mean, var))
  end)

  it('adds gradients into the rows of repeated indices', function()
    local embed = nn.Embedding(4, 2, F64)
    embed:forward({ 2, 4, 2 })
    assert.is_nil(embed:backward(fused.tensor({ { 1, 2 }, { 3, 4 }, { 10, 20 } }, F64)))
    assert.are.same({ { 0, 0 }, { 11, 22 }, { 0, 0 }, { 3, 4 } }, embed.grad.weight:totable())
    embed:forward({ 2, 4, 2 }) -- backward runs once per forward
    embed:backward(fused.tensor({ { 1, 1 }, { 1, 1 }, { 1, 1 } }, F64))
    assert.are.same({ { 0, 0 }, { 13, 24 }, { 0, 0 }, { 4, 5 } }, embed.grad.weight:totable())
  end)

  it('keeps the padding_idx row at zero, with no gradient, counted from 1 or from the end', function()
    local embed = nn.Embedding(4, 2, { padding_idx = 3, dtype = 'float64' })
    assert.are.same({ 0, 0 }, embed.weight:totable()[3])
    assert.are_not.same({ 0, 0 }, embed.weight:totable()[2])
    embed:forward({ 3, 2, 3 })
    assert.are.same({ 0, 0 }, embed:forward({ 3 }):totable()[1])
    embed:forward({ 3, 2, 3 })
    embed:backward(fused.tensor({ { 1, 2 }, { 3, 4 }, { 10, 20 } }, F64))
    assert.are.same({ { 0, 0 }, { 3, 4 }, { 0, 0 }, { 0, 0 } }, embed.grad.weight:totable())
    assert.are.equal('fused.nn.Embedding(num_embeddings=4, embedding_dim=2, padding_idx=3)', tostring(embed))
    assert.are.equal(4, nn.Embedding(4, 2, { padding_idx = -1 }).padding_idx)
    helper.assert_error(function() nn.Embedding(4, 2, { padding_idx = 0 }) end,
                        "Embedding: option 'padding_idx' expected an index in 1..4 (or -4..-1 from the end), got 0")
    helper.assert_error(function() nn.Embedding(4, 2, { padding_idx = 5 }) end, 'got 5')
  end)

  it('passes gradcheck for the weight', function()
    local embed = nn.Embedding(5, 3, F64)
    local indices = { { 1, 3 }, { 3, 5 } }
    ok_gradcheck({
      forward = function(W)
        embed.weight = W
        return embed:forward(indices), {}
      end,
      backward = function(_, d_y)
        embed:zeroGradParameters()
        embed:backward(d_y)
        return embed.grad.weight:clone()
      end,
    }, { embed.weight })
  end)

  it('rejects indices out of range or not integers, naming the position', function()
    local embed = nn.Embedding(3, 2)
    helper.assert_error(function() embed:forward({ 1, 0 }) end,
                        "Embedding:forward: argument 'indices' expected integers 1 to 3, got 0 at position 2")
    helper.assert_error(function() embed:forward({ 4 }) end, 'got 4 at position 1')
    helper.assert_error(function() embed:forward({ 1.5 }) end, "Embedding:forward: argument 'indices'", 'at indices[1] (dtype int64), got 1.5')
    helper.assert_error(function() embed:forward('a') end, "argument 'indices' expected a tensor, got string")
    helper.assert_error(function() nn.Embedding(3, 2):backward(fused.ones({ 1, 2 })) end, 'no forward')
    embed:forward({ 1, 2 })
    helper.assert_error(function() embed:backward(fused.ones({ 3, 2 })) end,
                        "Embedding:backward: argument 'd_output' expected shape [2, 2] (the output's), got [3, 2]")
    helper.assert_error(function() nn.Embedding(0, 2) end, "'num_embeddings' expected a positive integer")
  end)
end)

describe('nn.MSELoss', function()
  it('is the mean squared difference, with gradient 2 (input - target) / n', function()
    local mse = nn.MSELoss()
    local x, y = fused.tensor({ { 1, 2 }, { 3, 4 } }, F64), fused.tensor({ { 0, 2 }, { 5, 1 } }, F64)
    assert.are.equal((1 + 0 + 4 + 9) / 4, mse:forward(x, y))
    assert.are.same({ { 0.5, 0 }, { -1, 1.5 } }, mse:backward(x, y):totable())
    -- d_loss, the gradient at the loss, as the class losses take it (a recorded forward gives it).
    assert.are.same({ { 1.5, 0 }, { -3, 4.5 } }, mse:backward(x, y, 3):totable())
    helper.assert_error(function() mse:backward(x, y, 'a') end,
                        "MSELoss:backward: argument 'd_loss' expected a number (reduction 'mean'), got")
    helper.assert_error(function() mse:backward(x, y, 1, 2) end, 'MSELoss:backward: expected at most 3 arguments, got 4')
  end)

  it('passes gradcheck', function()
    local mse, target = nn.MSELoss(), fused.randn({ 3, 2 }, F64)
    local last
    ok_gradcheck({
      forward = function(x) last = x; return fused.tensor({ mse:forward(x, target) }, F64), {} end,
      backward = function(_, g) return mse:backward(last, target) * g:item() end,
    }, { fused.randn({ 3, 2 }, F64) })
  end)

  it('rejects mismatched shapes', function()
    helper.assert_error(function() nn.MSELoss():forward(fused.ones({ 2, 1 }), fused.ones({ 2 })) end,
                        "MSELoss:forward: argument 'target' expected shape [2, 1] (as input), got [2]")
    helper.assert_error(function() nn.MSELoss():backward(fused.ones({ 2 }), 1) end, "argument 'target' expected a tensor")
  end)
end)

describe('nn.CrossEntropyLoss', function()
  local function reference(logits, targets) -- the mean NLL of log_softmax, and its gradient
    local loss, grad = 0, {}
    for n, row in ipairs(logits) do
      local lp = log_softmax_row(row)
      loss = loss - lp[targets[n]]
      grad[n] = {}
      for k = 1, #row do grad[n][k] = (math.exp(lp[k]) - (k == targets[n] and 1 or 0)) / #logits end
    end
    return loss / #logits, grad
  end

  it('matches log_softmax + NLL computed in plain Lua, float64 and float32', function()
    local logits = fused.randn({ 6, 5 }, F64) * 3
    local targets = { 1, 5, 2, 2, 4, 3 }
    local want_loss, want_grad = reference(logits:totable(), targets)
    local ce = nn.CrossEntropyLoss()
    assert(math.abs(ce:forward(logits, targets) - want_loss) <= 1e-14 * math.abs(want_loss))
    helper.assert_close(ce:backward(logits, targets), fused.tensor(want_grad, F64), 1e-13, 'd_logits')
    local l32 = logits:float()
    assert(math.abs(ce:forward(l32, targets) - want_loss) <= 1e-6 * math.abs(want_loss))
    helper.assert_close(ce:backward(l32, targets), fused.tensor(want_grad, F64), 1e-5, 'd_logits f32')
  end)

  it('passes gradcheck', function()
    local ce, targets = nn.CrossEntropyLoss(), { 2, 1, 3 }
    local last
    ok_gradcheck({
      forward = function(x) last = x; return fused.tensor({ ce:forward(x, targets) }, F64), {} end,
      backward = function(_, g) return ce:backward(last, targets) * g:item() end,
    }, { fused.randn({ 3, 4 }, F64) })
  end)

  it('stays finite and exact for huge logits, in float32 and float64', function()
    local ce = nn.CrossEntropyLoss()
    for _, dtype in ipairs({ 'float32', 'float64' }) do
      local opts = { dtype = dtype }
      -- Row losses: 0 (the target holds the max by 1e4), log 2 (a tie), 0 (exp(-6e38) underflows).
      local logits = fused.tensor({ { 1e4, 0, -1e4 }, { 1e30, 1e30, -1e30 }, { -3e38, 0, 3e38 } }, opts)
      local loss = ce:forward(logits, { 1, 2, 3 })
      assert(math.abs(loss - math.log(2) / 3) < 1e-6, dtype .. ': loss ' .. loss)
      local d = ce:backward(logits, { 1, 2, 3 }):totable()
      for _, row in ipairs(d) do for _, v in ipairs(row) do assert(v == v and math.abs(v) <= 1, dtype) end end
      assert(math.abs(d[2][1] - 0.5 / 3) < 1e-7 and math.abs(d[2][2] + 0.5 / 3) < 1e-7, dtype)
      assert.are.equal(1e4, ce:forward(fused.tensor({ { 1e4, 0 } }, opts), { 2 }))
    end
  end)

  it('takes T x B x C logits with targets as a nested table or a tensor', function()
    local ce = nn.CrossEntropyLoss()
    local logits = fused.randn({ 3, 2, 4 }, F64)
    local nested = { { 1, 4 }, { 2, 2 }, { 3, 1 } }
    local flat = reference(logits:view(6, 4):totable(), { 1, 4, 2, 2, 3, 1 })
    assert(math.abs(ce:forward(logits, nested) - flat) < 1e-14)
    assert(math.abs(ce:forward(logits, fused.tensor(nested, { dtype = 'int64' })) - flat) < 1e-14)
    assert.are.same({ 3, 2, 4 }, ce:backward(logits, nested):shape())
  end)

  it('rejects bad targets and shapes with clear errors', function()
    local ce, logits = nn.CrossEntropyLoss(), fused.randn({ 2, 3 })
    helper.assert_error(function() ce:forward(logits, { 1, 4 }) end,
                        "CrossEntropyLoss:forward: argument 'targets' expected class indices 1 to 3, got 4 at position 2")
    helper.assert_error(function() ce:backward(logits, { 0, 1 }) end,
                        "CrossEntropyLoss:backward: argument 'targets' expected class indices 1 to 3, got 0 at position 1")
    helper.assert_error(function() ce:forward(logits, { 1.5, 1 }) end, 'got 1.5')
    helper.assert_error(function() ce:forward(logits, { 1 }) end,
                        "CrossEntropyLoss:forward: argument 'targets' expected 2 class indices (one per row of the logits), got 1")
    helper.assert_error(function() ce:forward(fused.randn({ 3 }), { 1 }) end,
                        "argument 'logits' expected N x C, T x B x C, or PyTorch's (N, C, d1, ...) with targets (N, d1, ...), got [3]")
    helper.assert_error(function() ce:forward(logits, 'x') end, "argument 'targets' expected a tensor, got string")
  end)
end)

describe('on the GPU', function()
  local gpu_it = helper.gpu_it

  gpu_it("Embedding's padding_idx row gets no gradient on CUDA either", function()
    local embed = nn.Embedding(3, 2, { padding_idx = 1, dtype = 'float64', device = 'cuda' })
    embed:forward({ 1, 2, 1 })
    embed:backward(fused.ones({ 3, 2 }, F64):cuda())
    assert.are.same({ { 0, 0 }, { 1, 1 }, { 0, 0 } }, embed.grad.weight:cpu():totable())
    assert.are.same({ 0, 0 }, embed.weight:cpu():totable()[1])
  end)

  gpu_it('Linear, Embedding and both losses match the CPU', function()
    local linear = nn.Linear(5, 3, F64)
    local x, d_y = fused.randn({ 2, 4, 5 }, F64), fused.randn({ 2, 4, 3 }, F64)
    local y = linear:forward(x)
    local d_x = linear:backward(d_y)
    local gw = linear.grad.weight:clone()
    linear:cuda():zeroGradParameters()
    helper.assert_close(linear:forward(x:cuda()), y, 1e-12, 'Linear y')
    helper.assert_close(linear:backward(d_y:cuda()), d_x, 1e-12, 'Linear d_x')
    helper.assert_close(linear.grad.weight, gw, 1e-12, 'Linear gradWeight')

    local embed = nn.Embedding(6, 3, F64)
    local idx = { { 1, 6 }, { 6, 2 } }
    local e = embed:forward(idx)
    embed:backward(fused.ones({ 2, 2, 3 }, F64))
    local egw = embed.grad.weight:clone()
    embed:cuda():zeroGradParameters()
    helper.assert_close(embed:forward(idx), e, 0, 'Embedding y')
    embed:backward(fused.ones({ 2, 2, 3 }, { dtype = 'float64', device = 'cuda' }))
    helper.assert_close(embed.grad.weight, egw, 0, 'Embedding gradWeight')

    local ce, logits, targets = nn.CrossEntropyLoss(), fused.randn({ 7, 4 }, F64), { 1, 2, 3, 4, 4, 3, 2 }
    assert(math.abs(ce:forward(logits:cuda(), targets) - ce:forward(logits, targets)) < 1e-13)
    helper.assert_close(ce:backward(logits:cuda(), targets), ce:backward(logits, targets), 1e-12, 'CE d_logits')
    local mse, a, b = nn.MSELoss(), fused.randn({ 3, 2 }, F64), fused.randn({ 3, 2 }, F64)
    assert(math.abs(mse:forward(a:cuda(), b:cuda()) - mse:forward(a, b)) < 1e-13)
  end)

  gpu_it('CrossEntropyLoss stays exact for huge float32 logits', function()
    local logits = fused.tensor({ { 1e30, 1e30, -1e30 }, { -3e38, 0, 3e38 } }, { device = 'cuda' })
    local loss = nn.CrossEntropyLoss():forward(logits, { 2, 3 })
    assert(math.abs(loss - math.log(2) / 2) < 1e-6, 'loss ' .. loss)
  end)
end)
