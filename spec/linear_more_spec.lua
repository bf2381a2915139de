-- The linear cells (issue 35) on the shapes and options spec/linear_cells_spec.lua leaves out,
-- against the PyTorch float64 references of spec/data/linear_more (gen.py beside them, written
-- from the papers' equations): H = 1, 3, 17, 33 and 257, B = 1, T = 1, a long T, 2 and 3
-- layers, 3 layers bidirectional, input size != hidden size, no initial state, lengths of 1 and
-- T together, resets at step 0, at the last step, at every step, and a reset tensor of zeros.
-- Every result (outputs, final states, every gradient) within 1e-10 in float64 and by the
-- golden rule in float32, on every CPU vector path and the emulated CUDA device. The layer in
-- nn.Sequential with a Linear, trained by SGD with momentum on the mean squared error, against
-- PyTorch doing the same (every step's loss and the parameters after, within 1e-10), on the CPU
-- and the emulated device, the parameters loaded by load_state_dict. Backward goes through
-- forward's lengths and resets, whatever the caller writes in them after (as the dense engine).
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'

local cache = os.tmpname()
local o = { dtype = 'float64' }
local DATA = 'spec/data/linear_more/'

local CASES = { 'mingru_one', 'mingru_h257_resets', 'minlstm_3layers_no_h0', 'rglru_2layers_h33',
                'bidir_lru_3layers', 'bidir_sru_h1_every_step', 'bidir_rglru_b1_no_h0',
                'mingru_long_resets', 'bidir_minlstm_zero_resets', 'bidir_mingru_t1' }

-- Forward and backward of the case through nn.RNN in dtype on device (nil: the CPU); a state's
-- initial value is given where the reference has one, else nil (zeros).
local function run_case(case, dtype, device)
  local c = ref.config(DATA, case)
  local cell = fused.cell.define(ref.example(c.cell, cache .. '.d'))
  local m = fused.nn.RNN(c.I, c.H, { cell = cell, dtype = dtype, bias = c.bias,
                                     num_layers = c.num_layers, bidirectional = c.bidirectional })
  for name, p in m:named_parameters() do p:copy(ref.load(DATA, case, name)) end
  if device then m:cuda() end
  local get = ref.getter(DATA, case, dtype, device)
  return ref.run(m, c, get, function(s)
    return ref.exists(DATA, case, s .. '0') and get(s .. '0') or nil
  end), c
end

describe('linear cells on more shapes and options', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  ref.every_path(CASES, function(case, dtype, device, what)
    local got, c = run_case(case, dtype, device)
    local checked = ref.compare(DATA, case, c, got, dtype, what)
    -- hs, d_xs, the weights' gradients, a final state per state at least
    assert.is_true(checked >= 3 + #c.states, case .. ': ' .. checked .. ' checked')
  end)

  -- The case's model, its parameters from the reference's init_<name> loaded by a state_dict,
  -- trained for as many steps as the reference on device: the losses and the parameters.
  local function train(case, device)
    local c = ref.config(DATA, case)
    local cell = fused.cell.define(ref.example(c.cell, cache .. '.d'))
    local D = c.bidirectional and 2 or 1
    local model = fused.nn.Sequential(
      fused.nn.RNN(c.I, c.H, { cell = cell, num_layers = c.num_layers, bias = c.bias,
                               bidirectional = c.bidirectional, dtype = 'float64' }),
      fused.nn.Linear(D * c.H * (c.cell == 'lru' and 2 or 1), c.out, { dtype = 'float64' }))
    local state = {}
    for name in pairs(model:state_dict()) do state[name] = ref.load(DATA, case, 'init_' .. name) end
    model:load_state_dict(state)
    for name, p in pairs(model:state_dict()) do
      helper.assert_close(p, state[name], 0, 'state_dict ' .. name)
    end
    local xs, target = ref.load(DATA, case, 'xs'), ref.load(DATA, case, 'target')
    if device then model:cuda(); xs, target = xs:cuda(), target:cuda() end
    local params, grads = model:parameters()
    local opt = fused.optim.SGD(params, grads, { lr = c.lr, momentum = c.momentum })
    local mse, losses = fused.nn.MSELoss(), {}
    for k = 1, #c.losses do
      local y = model:forward(xs)
      losses[k] = mse:forward(y, target)
      model:zeroGradParameters()
      model:backward(mse:backward(y, target))
      opt:step()
    end
    return losses, model:state_dict(), c
  end

  for _, device in ipairs({ 'cpu', 'cuda' }) do
    local run = device == 'cpu' and it or helper.gpu_it
    run('backward goes through forward\'s lengths and resets, whatever is written in them after, '
        .. 'on ' .. device, function()
      local cell = fused.cell.define(ref.example('rglru', cache .. '.d'))
      local m = fused.nn.RNN(3, 3, { cell = cell, bidirectional = true, dtype = 'float64' })
      local function on(t) return device == 'cuda' and t:cuda() or t end
      if device == 'cuda' then m:cuda() end
      fused.manual_seed(21)
      local xs, d_hs = on(fused.randn({ 5, 2, 3 }, o)), on(fused.randn({ 5, 2, 6 }, o))
      local function grads(lengths, resets, change)
        m:forward(xs, nil, { lengths = lengths, resets = resets })
        if change then change() end
        m:zeroGradParameters()
        return { m:backward(d_hs):clone(), m.grad.a_param_l0:clone(),
                 m.grad.weight_ih_l0_reverse:clone() }
      end
      local list, r = { 5, 3 }, fused.zeros({ 5, 2 }, { dtype = 'bool' })
      r[2][1] = true
      local want = grads(list, on(r))
      local lengths_tensor = on(fused.tensor({ 5, 3 }, { dtype = 'int64' }))
      local resets = on(r:clone())
      local got = grads(list, resets, function()
        list[2] = 5
        resets:fill(false)
      end)
      local got_tensor = grads(lengths_tensor, on(r), function() lengths_tensor:fill(4) end)
      for k = 1, 3 do
        helper.assert_close(got[k]:cpu(), want[k]:cpu(), 0, 'list and resets ' .. k)
        helper.assert_close(got_tensor[k]:cpu(), want[k]:cpu(), 0, 'lengths tensor ' .. k)
      end
    end)
  end

  for _, case in ipairs({ 'train_mingru_2layers', 'train_bidir_lru', 'train_rglru_2layers' }) do
    for _, device in ipairs({ false, 'cuda' }) do
      local run = device and helper.gpu_it or it
      run(case .. ': nn.Sequential trained by SGD as PyTorch, on ' .. (device or 'cpu'), function()
        local losses, state, c = train(case, device)
        for k, want in ipairs(c.losses) do
          assert.is_true(math.abs(losses[k] - want) <= 1e-10 * math.max(1, math.abs(want)),
                         string.format('%s step %d: loss %.17g, PyTorch %.17g', case, k,
                                       losses[k], want))
        end
        for name, p in pairs(state) do
          helper.assert_close(p:cpu(), ref.load(DATA, case, name), 1e-10, case .. ' ' .. name)
        end
      end)
    end
  end
end)
