-- nn.Scan and fused.scan trained inside nn.Sequential (issue 35): Sequential(Linear(I, 2D), a
-- gated scan, Linear(D, out)), the gated scan a module with a forward only (its backward
-- derived: docs/nn.md) that takes a = sigmoid(the first D), b = the last D and runs them
-- through nn.Scan (one step on the tape, its own backward) or fused.scan (its autograd rule),
-- ragged, with resets, forward and reverse; trained by SGD with momentum against PyTorch doing
-- the same (spec/data/scan_train/gen.py): every step's loss and the parameters after, within
-- 1e-10, on the CPU and the emulated CUDA device.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'

local DATA = 'spec/data/scan_train/'

local GatedScan = fused.nn.Module:extend('GatedScan')
function GatedScan:__init(D, opts, use_module)
  self.D, self.opts = D, opts
  self.scan = use_module and fused.nn.Scan({ reverse = opts.reverse }) or nil
end
function GatedScan:forward(x)
  local D = self.D
  local a, b = x:narrow(3, 1, D):sigmoid(), x:narrow(3, D + 1, D)
  local o = self.opts
  if self.scan then
    return self.scan:forward(a, b, nil, { lengths = o.lengths, resets = o.resets })
  end
  return fused.scan(a, b, nil, o)
end

local function train(case, device, use_module)
  local c = ref.config(DATA, case)
  local function get(name)
    local t = ref.load(DATA, case, name)
    return device and t:cuda() or t
  end
  local o = { dtype = 'float64' }
  local model = fused.nn.Sequential(
    fused.nn.Linear(c.I, 2 * c.D, o),
    GatedScan(c.D, { lengths = c.lengths, resets = get('resets'), reverse = c.reverse },
              use_module),
    fused.nn.Linear(c.D, c.out, o))
  local state = {}
  for name in pairs(model:state_dict()) do state[name] = ref.load(DATA, case, 'init_' .. name) end
  model:load_state_dict(state)
  local xs, target = get('xs'), get('target')
  if device then model:cuda() end
  local params, grads = model:parameters()
  local opt = fused.optim.SGD(params, grads, { lr = c.lr, momentum = c.momentum })
  local mse = fused.nn.MSELoss()
  for k, want in ipairs(c.losses) do
    local y = model:forward(xs)
    local loss = mse:forward(y, target)
    assert.is_true(math.abs(loss - want) <= 1e-10 * math.max(1, math.abs(want)),
                   string.format('%s step %d: loss %.17g, PyTorch %.17g', case, k, loss, want))
    model:zeroGradParameters()
    model:backward(mse:backward(y, target))
    opt:step()
  end
  for name, p in pairs(model:state_dict()) do
    helper.assert_close(p:cpu(), ref.load(DATA, case, name), 1e-10, case .. ' ' .. name)
  end
end

describe('nn.Scan and fused.scan trained in nn.Sequential', function()
  for _, case in ipairs({ 'forward', 'reverse' }) do
    for _, use_module in ipairs({ true, false }) do
      local what = case .. (use_module and ' through nn.Scan' or ' through fused.scan')
      it(what .. ' as PyTorch, on cpu', function() train(case, false, use_module) end)
      helper.gpu_it(what .. ' as PyTorch, on cuda', function() train(case, 'cuda', use_module) end)
    end
  end
end)
