-- Optimizers: a few steps against the same updates written out in plain Lua (PyTorch's
-- formulas), state_dict round trips that continue exactly, clip_grad_norm, and errors.
local helper = require 'spec.helper'
local fused = helper.fused
local optim = fused.optim

local F64 = { dtype = 'float64' }

-- Parameters and a fixed sequence of gradients (one list per step), as tensors and tables.
local P0 = { { 1, -2, 3, 0.5 }, { 0.25, -0.75 } }
local GRADS = {
  { { 0.5, 0.1, -1, 2 }, { 0.3, -0.2 } },
  { { -0.4, 0.2, 0.7, -1 }, { 0.1, 0.05 } },
  { { 0.05, -0.3, 0.2, 0.9 }, { -0.6, 0.4 } },
}

-- Runs `steps` steps of the optimizer class on tensors, returning the parameters as tables.
local function run(class, opts, steps, dtype)
  local params, grads = {}, {}
  for i, p in ipairs(P0) do
    params[i] = fused.tensor(p, { dtype = dtype or 'float64' })
    grads[i] = fused.zeros({ #p }, { dtype = dtype or 'float64' })
  end
  local opt = class(params, grads, opts)
  for s = 1, steps do
    for i = 1, #params do grads[i]:copy(fused.tensor(GRADS[s][i], { dtype = dtype or 'float64' })) end
    opt:step()
  end
  local out = {}
  for i, p in ipairs(params) do out[i] = p:totable() end
  return out, opt, params, grads
end

-- The reference: update(state, p, g, t) changes p (a number) and returns it, per element.
local function reference(steps, update)
  local out, state = {}, {}
  for i, p in ipairs(P0) do
    out[i], state[i] = {}, {}
    for e, v in ipairs(p) do
      state[i][e] = {}
      for s = 1, steps do v = update(state[i][e], v, GRADS[s][i][e], s) end
      out[i][e] = v
    end
  end
  return out
end

local function assert_near(got, want, tol)
  for i = 1, #want do
    for e = 1, #want[i] do
      local g, w = got[i][e], want[i][e]
      assert(math.abs(g - w) <= tol * math.max(1, math.abs(w)),
             string.format('param %d[%d]: got %.17g, want %.17g', i, e, g, w))
    end
  end
end

describe('optim.SGD', function()
  it('without momentum: param -= lr (grad + weight_decay param)', function()
    local got = run(optim.SGD, { lr = 0.1, weight_decay = 0.01 }, 3)
    assert_near(got, reference(3, function(_, p, g) return p - 0.1 * (g + 0.01 * p) end), 1e-15)
  end)

  it('with momentum: the buffer starts as the first gradient', function()
    local got = run(optim.SGD, { lr = 0.1, momentum = 0.9, weight_decay = 0.01 }, 3)
    assert_near(got, reference(3, function(st, p, g, t)
      local d = g + 0.01 * p
      st.buf = t == 1 and d or 0.9 * st.buf + d
      return p - 0.1 * st.buf
    end), 1e-15)
  end)

  it('with dampening: later gradients enter the buffer scaled by 1 - dampening', function()
    local got = run(optim.SGD, { lr = 0.1, momentum = 0.9, dampening = 0.3 }, 3)
    assert_near(got, reference(3, function(st, p, g, t)
      st.buf = t == 1 and g or 0.9 * st.buf + 0.7 * g
      return p - 0.1 * st.buf
    end), 1e-15)
  end)

  it('with nesterov: the step looks ahead by momentum * buffer', function()
    local got = run(optim.SGD, { lr = 0.1, momentum = 0.9, weight_decay = 0.01, nesterov = true }, 3)
    assert_near(got, reference(3, function(st, p, g, t)
      local d = g + 0.01 * p
      st.buf = t == 1 and d or 0.9 * st.buf + d
      return p - 0.1 * (d + 0.9 * st.buf)
    end), 1e-15)
  end)
end)

describe('optim.RMSprop', function()
  local function rmsprop(lr, alpha, eps, momentum, wd)
    return function(st, p, g)
      local d = g + wd * p
      st.sq = alpha * (st.sq or 0) + (1 - alpha) * d * d
      local avg = math.sqrt(st.sq) + eps -- eps outside the root, as PyTorch
      if momentum > 0 then
        st.buf = momentum * (st.buf or 0) + d / avg
        return p - lr * st.buf
      end
      return p - lr * d / avg
    end
  end

  it('matches PyTorch’s update, eps outside the square root', function()
    -- eps = 0.1 is large enough that eps inside the root would fail this.
    local got = run(optim.RMSprop, { lr = 0.01, alpha = 0.9, eps = 0.1, weight_decay = 0.02 }, 3)
    assert_near(got, reference(3, rmsprop(0.01, 0.9, 0.1, 0, 0.02)), 1e-15)
  end)

  it('with momentum, the buffer starting at zero', function()
    local got = run(optim.RMSprop, { lr = 0.01, momentum = 0.5 }, 3)
    assert_near(got, reference(3, rmsprop(0.01, 0.99, 1e-8, 0.5, 0)), 1e-15)
  end)
end)

describe('optim.Adam', function()
  local function adam(lr, b1, b2, eps, wd)
    return function(st, p, g, t)
      local d = g + wd * p
      st.m = b1 * (st.m or 0) + (1 - b1) * d
      st.v = b2 * (st.v or 0) + (1 - b2) * d * d
      return p - lr / (1 - b1 ^ t) * st.m / (math.sqrt(st.v) / math.sqrt(1 - b2 ^ t) + eps)
    end
  end

  it('matches PyTorch’s update with bias correction and L2 weight decay', function()
    local got = run(optim.Adam, { lr = 0.1, betas = { 0.8, 0.95 }, eps = 1e-3, weight_decay = 0.1 }, 3)
    assert_near(got, reference(3, adam(0.1, 0.8, 0.95, 1e-3, 0.1)), 1e-15)
  end)

  it('uses PyTorch’s defaults, in float32 too', function()
    local want = reference(3, adam(1e-3, 0.9, 0.999, 1e-8, 0))
    assert_near(run(optim.Adam, {}, 3), want, 1e-15)
    assert_near(run(optim.Adam, {}, 3, 'float32'), want, 1e-6)
  end)
end)

describe('Optimizer:zero_grad', function()
  it('zeroes every gradient it steps from, and nothing else', function()
    local _, opt, params, grads = run(optim.SGD, { lr = 0.1 }, 1)
    local before = params[1]:totable()
    opt:zero_grad()
    for _, g in ipairs(grads) do assert.are.equal(0, g:abs():max()) end
    assert.are.same(before, params[1]:totable())
  end)
end)

describe('optim.AdamW', function()
  it('decays the parameter apart from the gradient, then takes Adam’s step', function()
    local got = run(optim.AdamW, { lr = 0.1, betas = { 0.8, 0.95 }, eps = 1e-3, weight_decay = 0.2 }, 3)
    assert_near(got, reference(3, function(st, p, g, t)
      p = p * (1 - 0.1 * 0.2)
      st.m = 0.8 * (st.m or 0) + 0.2 * g
      st.v = 0.95 * (st.v or 0) + 0.05 * g * g
      return p - 0.1 / (1 - 0.8 ^ t) * st.m / (math.sqrt(st.v) / math.sqrt(1 - 0.95 ^ t) + 1e-3)
    end), 1e-15)
  end)
end)

describe('Optimizer:state_dict', function()
  for _, case in ipairs({ { optim.Adam, { lr = 0.1 } }, { optim.SGD, { lr = 0.1, momentum = 0.9 } },
                          { optim.RMSprop, { lr = 0.01, momentum = 0.5 } },
                          { optim.AdamW, { lr = 0.1 } },
                          { optim.SGD, { lr = 0.1, momentum = 0.9, nesterov = true } } }) do
    local class, opts = case[1], case[2]
    it(class.__name .. ': a fresh optimizer loaded from step 2 continues exactly as the original', function()
      local want = run(class, opts, 3)
      local _, opt, params = run(class, opts, 2)
      local state = opt:state_dict()
      assert.are.equal(2, state.step)
      assert.are.equal(opts.lr, state.hyper.lr)
      -- As a checkpoint would: copies, and fresh parameters holding the same values.
      local copied = { step = state.step, hyper = state.hyper, params = state.params, tensors = {} }
      for k, t in pairs(state.tensors) do copied.tensors[k] = t:clone() end
      local params2, grads2 = {}, {}
      for i, p in ipairs(params) do params2[i], grads2[i] = p:clone(), fused.zeros(p:shape(), F64) end
      local opt2 = class(params2, grads2, {})
      opt2:load_state_dict(copied)
      assert.are.equal(opts.lr, opt2.lr)
      for i = 1, #params2 do grads2[i]:copy(fused.tensor(GRADS[3][i], F64)) end
      opt2:step()
      for i = 1, #want do assert.are.same(want[i], params2[i]:totable()) end
    end)
  end

  it('names its buffers by parameter position, in the order of the params', function()
    local _, opt, params = run(optim.Adam, {}, 1)
    local state = opt:state_dict()
    assert.are.equal(2, state.params)
    assert.are.same({ '1.exp_avg', '1.exp_avg_sq', '2.exp_avg', '2.exp_avg_sq' },
                    helper.sorted_keys(state.tensors))
    assert.are.equal(params[2]:numel(), state.tensors['2.exp_avg']:numel())
  end)

  it('rejects a state for other parameters, and takes nothing from it', function()
    local _, opt = run(optim.Adam, {}, 1)
    local state = opt:state_dict() -- fresh tables each call, holding the live buffers
    state.tensors['1.exp_avg'] = fused.zeros({ 3 }, F64)
    state.hyper.lr = 5
    helper.assert_error(function() opt:load_state_dict(state) end,
                        "Adam:load_state_dict: buffer '1.exp_avg' expected a tensor of shape [4], got [3]")
    assert.are.equal(1e-3, opt.lr)
    state = opt:state_dict()
    state.params = 3
    helper.assert_error(function() opt:load_state_dict(state) end,
                        "Adam:load_state_dict: argument 'state' expected the state of 2 parameters (this "
                        .. "optimizer's), got 3")
    state = opt:state_dict()
    state.tensors['3.exp_avg'] = fused.zeros({ 4 }, F64)
    helper.assert_error(function() opt:load_state_dict(state) end,
                        "Adam:load_state_dict: argument 'state' has an unexpected buffer '3.exp_avg'")
    helper.assert_error(function() opt:load_state_dict({}) end, 'expected a table from state_dict()')
  end)

  it('takes the buffers that the loaded hyperparameters call for', function()
    local _, with_momentum = run(optim.SGD, { lr = 0.1, momentum = 0.9 }, 1)
    local _, plain = run(optim.SGD, { lr = 0.1 }, 0)
    local state = with_momentum:state_dict()
    plain:load_state_dict(state)
    assert.are.equal(0.9, plain.momentum)
    assert.are.same(state.tensors['2.momentum_buffer']:totable(), plain.buffers.momentum_buffer[2]:totable())
  end)
end)

describe('optim.clip_grad_norm', function()
  it('returns the total norm and scales the gradients down to max_norm', function()
    local a, b = fused.tensor({ 3, 0 }, F64), fused.tensor({ { 0, 4 } }, F64)
    assert.are.equal(5, optim.clip_grad_norm({ a, b }, 1))
    local scale = 1 / (5 + 1e-6)
    assert.are.same({ 3 * scale, 0 }, a:totable())
    assert.are.same({ { 0, 4 * scale } }, b:totable())
  end)

  it('leaves gradients under max_norm, and non-finite norms, as they are', function()
    local a = fused.tensor({ 0.3, 0.4 })
    assert(math.abs(optim.clip_grad_norm({ a }, 1) - 0.5) < 1e-7)
    assert.are.same(fused.tensor({ 0.3, 0.4 }):totable(), a:totable())
    local inf = fused.tensor({ 1, math.huge })
    assert.are.equal(math.huge, optim.clip_grad_norm({ inf }, 1))
    assert.are.same({ 1, math.huge }, inf:totable())
  end)

  it('sums the squares in float64 for float32 tensors', function()
    local g = fused.full({ 1000 }, 1e-3)
    local want = math.sqrt(1000 * (fused.tensor({ 1e-3 }):item()) ^ 2)
    assert(math.abs(optim.clip_grad_norm({ g }, 1) - want) < 1e-15)
  end)

  it("takes the parameters, PyTorch's call: their gradients are clipped, the weights untouched", function()
    local m = fused.nn.Sequential(fused.nn.Linear(2, 2, F64), fused.nn.Linear(2, 1, F64))
    local params, grads = m:parameters()
    for i, p in ipairs(params) do p:fill_(10); grads[i]:fill_(1) end
    local n = 0
    for _, g in ipairs(grads) do n = n + g:numel() end
    assert.are.equal(math.sqrt(n), optim.clip_grad_norm(m:parameters(), 1))
    for i, p in ipairs(params) do
      assert.are.equal(10, p:min())
      assert.are.equal(1 / (math.sqrt(n) + 1e-6), grads[i]:max())
    end
    -- a parameter and its own gradient both given: clipped once
    for _, g in ipairs(grads) do g:fill_(1) end
    assert.are.equal(math.sqrt(n), optim.clip_grad_norm({ params[1], grads[1], params[2], params[3], params[4] }, 1))
    assert.are.equal(1 / (math.sqrt(n) + 1e-6), grads[1]:max())
  end)

  it('takes norm_type (math.huge: the largest |g|) and error_if_nonfinite, as PyTorch', function()
    local a, b = fused.tensor({ 3, -4 }, F64), fused.tensor({ 1 }, F64)
    assert.are.equal(8, optim.clip_grad_norm({ a, b }, 100, { norm_type = 1 }))
    assert.are.equal(4, optim.clip_grad_norm({ a, b }, 2, { norm_type = math.huge }))
    assert.are.same({ 3 * 2 / (4 + 1e-6), -4 * 2 / (4 + 1e-6) }, a:totable())
    local nan = fused.tensor({ 1, 0 / 0 })
    helper.assert_error(function() optim.clip_grad_norm({ nan }, 1, { error_if_nonfinite = true }) end,
                        'clip_grad_norm: the total norm of order 2 of the gradients is nan')
    helper.assert_error(function() optim.clip_grad_norm({ a }, 1, { norm_type = 0 }) end,
                        "clip_grad_norm: option 'norm_type' expected a number > 0")
    helper.assert_error(function() optim.clip_grad_norm({ a }, 1, 2) end,
                        "clip_grad_norm: argument 'opts' expected a table of options")
  end)

  it('rejects bad arguments', function()
    helper.assert_error(function() optim.clip_grad_norm(fused.ones({ 2 }), 1) end,
                        "clip_grad_norm: argument 'grads' expected a non-empty list of tensors")
    helper.assert_error(function() optim.clip_grad_norm({ fused.ones({ 2 }) }, 0) end,
                        "argument 'max_norm' expected a number > 0, got 0")
    helper.assert_error(function() optim.clip_grad_norm({}, 1) end,
                        "clip_grad_norm: argument 'grads' expected a non-empty list of tensors (the parameters or their gradients), got an empty list")
    helper.assert_error(function() optim.clip_grad_norm({ 1 }, 1) end, "argument 'grads[1]' expected a tensor")
    helper.assert_error(function() optim.clip_grad_norm({ fused.ones({ 2, 2 }):t() }, 1) end,
                        "sum_squares: argument 'input' expected a contiguous tensor")
  end)
end)

describe('optimizer errors', function()
  local p, g = fused.ones({ 3 }, F64), fused.zeros({ 3 }, F64)

  it('name the optimizer and the option', function()
    helper.assert_error(function() optim.Adam({ p }, { g }, { lr = -1 }) end,
                        "Adam: option 'lr' expected a finite number >= 0, got -1")
    helper.assert_error(function() optim.Adam({ p }, { g }, { betas = { 0.9, 1 } }) end,
                        "Adam: option 'betas' expected a number in [0, 1), got 1")
    helper.assert_error(function() optim.Adam({ p }, { g }, { betas = 0.9 }) end, "option 'betas' expected two numbers")
    helper.assert_error(function() optim.SGD({ p }, { g }, { momentum = 1.5 }) end,
                        "SGD: option 'momentum' expected a number in [0, 1], got 1.5")
    helper.assert_error(function() optim.RMSprop({ p }, { g }, { rho = 0.9 }) end, "RMSprop: unknown option 'rho'")
    helper.assert_error(function() optim.SGD({ p }, { g }, { momentum = 0.9, nesterov = 1 }) end,
                        "SGD: option 'nesterov' expected true or false, got 1")
    helper.assert_error(function() optim.SGD({ p }, { g }, { nesterov = true }) end,
                        'SGD: nesterov expected momentum > 0 and dampening 0, got momentum 0 and dampening 0')
    helper.assert_error(function() optim.SGD({ p }, { g }, { momentum = 0.9, dampening = 0.1, nesterov = true }) end,
                        'SGD: nesterov expected momentum > 0 and dampening 0, got momentum 0.9 and dampening 0.1')
  end)

  it('check params against grads', function()
    helper.assert_error(function() optim.SGD({ p }, { g, g }) end,
                        "SGD: arguments 'params' and 'grads' expected two lists of tensors of one length")
    helper.assert_error(function() optim.SGD({ p }, { fused.zeros({ 3 }) }) end,
                        'SGD: grads[1] expected the shape, dtype and device of params[1]')
    helper.assert_error(function() optim.SGD({}, {}) end, 'expected two lists')
    helper.assert_error(function() optim.SGD({ 'x' }, { g }) end, "argument 'params[1]' expected a tensor, got string")
  end)

  it('refuse a parameter given twice, which would be stepped twice', function()
    local q = fused.ones({ 2 }, F64)
    helper.assert_error(function() optim.Adam({ p, q, p }, { g, fused.zeros({ 2 }, F64), g }) end,
                        'Adam: params[3] is params[1] again (each parameter expected once; module:parameters() lists a tied one once)')
  end)

  it('check the types of a loaded state, naming the field', function()
    local opt = optim.Adam({ p }, { g })
    for _, case in ipairs({ { 'step', 1.5 }, { 'step', -1 }, { 'step', 0 / 0 }, { 'params', 1.5 } }) do
      local state = opt:state_dict()
      state[case[1]] = case[2]
      helper.assert_error(function() opt:load_state_dict(state) end,
                          string.format("Adam:load_state_dict: argument 'state' field '%s' expected an "
                                        .. 'integer >= 0, got %s', case[1], tostring(case[2])))
    end
    assert.are.equal(0, opt.step_count)
  end)

  it('come from the C API too, naming the argument', function()
    local C = fused.C
    local m, v = fused.zeros({ 3 }, F64), fused.zeros({ 3 }, F64)
    helper.assert_error(function() require('fused.lib').check(C.fused_adam_step(p, m, v, g, 0.1, 0.9, 0.999, 1e-8, 0, 0, 0)) end,
                        "adam_step: argument 'step' expected >= 1, got 0")
    helper.assert_error(function() require('fused.lib').check(C.fused_adam_step(p, m, fused.zeros({ 2 }, F64), g, 0.1, 0.9, 0.999, 1e-8, 0, 0, 1)) end,
                        "adam_step: argument 'exp_avg_sq' expected shape [3] (as 'param'), got [2]")
    helper.assert_error(function() require('fused.lib').check(C.fused_sgd_step(p, nil, g, 0.1, 0.9, 0, 0, 0, 1)) end,
                        "sgd_step: argument 'momentum_buffer' expected a tensor (momentum is 0.9), got NULL")
    helper.assert_error(function() require('fused.lib').check(C.fused_rmsprop_step(p, p, nil, g, 0.1, 0.9, 1e-8, 0, 0)) end,
                        "rmsprop_step: argument 'square_avg' must not share memory with 'param'")
  end)
end)

describe('an optimizer built before model:to()', function()
  it('steps the converted parameters, which stay the same tensors', function()
    local model = fused.nn.Linear(3, 2)
    local params, grads = model:parameters()
    local opt = optim.SGD(params, grads, { lr = 0.5, momentum = 0.9 })
    model:double()
    assert.are.equal(params[1], model.weight)
    assert.are.equal('float64', model.weight.dtype)
    local before = model.weight:clone()
    model.grad.weight:fill_(1)
    opt:step()
    assert.are.same((before - 0.5):totable(), model.weight:totable())
    assert.are.equal('float64', opt.buffers.momentum_buffer[1].dtype)
  end)
end)

describe('optimizers on the GPU', function()
  helper.gpu_it('take the same steps as on the CPU, and clip_grad_norm agrees', function()
    for _, case in ipairs({ { optim.Adam, { lr = 0.1, weight_decay = 0.1 } },
                            { optim.AdamW, { lr = 0.1, weight_decay = 0.1 } },
                            { optim.SGD, { lr = 0.1, momentum = 0.9 } },
                            { optim.SGD, { lr = 0.1, momentum = 0.9, nesterov = true } },
                            { optim.RMSprop, { lr = 0.01, momentum = 0.5 } } }) do
      local want = run(case[1], case[2], 3)
      local params, grads = {}, {}
      for i, p in ipairs(P0) do
        params[i] = fused.tensor(p, { dtype = 'float64', device = 'cuda' })
        grads[i] = fused.zeros({ #p }, { dtype = 'float64', device = 'cuda' })
      end
      local opt = case[1](params, grads, case[2])
      for s = 1, 3 do
        for i = 1, #params do grads[i]:copy(fused.tensor(GRADS[s][i], F64):cuda()) end
        opt:step()
      end
      local got = {}
      for i, p in ipairs(params) do got[i] = p:totable() end
      assert_near(got, want, 1e-14)
    end
    local g = fused.tensor({ 3, 4 }, { dtype = 'float64', device = 'cuda' })
    assert.are.equal(5, optim.clip_grad_norm({ g }, 1))
    assert_near({ g:totable() }, { { 3 / (5 + 1e-6), 4 / (5 + 1e-6) } }, 1e-15)
  end)
end)
