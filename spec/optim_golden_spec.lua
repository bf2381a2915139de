-- The optimizers against PyTorch's own (spec/golden/optim, made by its make.py): 100 steps on a
-- small model whose gradient a * (p - c) both sides compute in the parameter's dtype, so that
-- they differ only in the optimizer. float64 within 1e-10; float32 no farther from PyTorch's
-- float32 run than twice the distance between PyTorch's float32 and float64 runs.
local helper = require 'spec.helper'
local fused = helper.fused

local CASES = { 'sgd', 'sgd_momentum', 'sgd_dampening', 'sgd_nesterov', 'adam',
                'adam_weight_decay', 'adamw', 'rmsprop', 'rmsprop_momentum' }

local function config(case)
  local json = require 'fused.json'
  local c = json.decode(helper.read(helper.golden .. '/optim/' .. case .. '/config.json'))
  return c.optimizer, c.options, c.steps
end

-- The final parameters after PyTorch's steps of the case, run here in dtype.
local function train(case, dtype)
  local class, opts, steps = config(case)
  local params, grads, a, c = {}, {}, {}, {}
  for i = 1, 2 do
    params[i] = helper.load_golden('optim/model', 'init' .. i, dtype)
    a[i] = helper.load_golden('optim/model', 'a' .. i, dtype)
    c[i] = helper.load_golden('optim/model', 'c' .. i, dtype)
    grads[i] = fused.zeros(params[i]:shape(), { dtype = dtype })
  end
  local opt = fused.optim[class](params, grads, opts)
  for _ = 1, steps do
    for i = 1, 2 do grads[i]:copy_(a[i]:mul(params[i]:sub(c[i]))) end
    opt:step()
  end
  return params
end

-- The largest elementwise distance between two lists of tensors, in float64.
local function distance(xs, ys)
  local d = 0
  for i = 1, #xs do
    d = math.max(d, xs[i]:double():sub(ys[i]:double()):abs():max())
  end
  return d
end

local function golden(case, tag)
  return { helper.load_golden('optim/' .. case, 'p1_' .. tag),
           helper.load_golden('optim/' .. case, 'p2_' .. tag) }
end

describe('optimizers against PyTorch over 100 steps', function()
  for _, case in ipairs(CASES) do
    it(case .. ' in float64 within 1e-10', function()
      local d = distance(train(case, 'float64'), golden(case, 'float64'))
      assert(d <= 1e-10, string.format('%s: float64 distance %.3e', case, d))
    end)

    it(case .. ' in float32 within twice PyTorch float32 from its float64', function()
      local own = distance(golden(case, 'float32'), golden(case, 'float64'))
      -- Well conditioned: rounding is not amplified over the steps (else the bound would say
      -- more about the case than about the optimizer, and depend on the CPU's vector path).
      assert(own > 0 and own < 1e-5, string.format('PyTorch float32 is %.3e from its float64: '
                                                   .. 'expected (0, 1e-5)', own))
      local d = distance(train(case, 'float32'), golden(case, 'float32'))
      assert(d <= 2 * own, string.format('%s: float32 distance %.3e from PyTorch float32, '
                                         .. 'bound 2 x %.3e', case, d, own))
    end)
  end
end)
