-- A PyTorch or Torch7 user's habits on modules and optimizers (issue 33): each computes what
-- it means or is an error naming the function called and the form to write, never a result
-- with an argument dropped or a value left over from before.
local helper = require 'spec.helper'
local fused = helper.fused
local nn, optim = fused.nn, fused.optim
local err = helper.assert_error

local function linear()
  local m = nn.Linear(3, 2, { dtype = 'float64' })
  local params, grads = m:parameters()
  return m, params, grads
end

describe("a module's forward and backward", function()
  it('called with a dot, as in Python, say to write the colon', function()
    local m = linear()
    local x = fused.randn(4, 3):double()
    local seq = nn.Sequential(m)
    for _, f in ipairs({ m.forward, seq.forward }) do
      err(function() f(x) end, 'forward: expected a module to call it on, got a tensor',
          'call it as m:forward(...), with a colon')
    end
    err(function() m.backward(x) end, 'backward: expected a module to call it on, got a tensor')
    err(function() m.forward() end, 'forward: expected a module to call it on')
  end)

  it("Sequential:forward refuses an argument it does not take, as every module's forward", function()
    local m = linear()
    local seq = nn.Sequential(m, nn.Tanh())
    local x = fused.randn(4, 3):double()
    err(function() seq:forward(x, x) end, 'Sequential:forward: expected at most 1 arguments, got 2')
    err(function() seq(x, 2) end, 'Sequential:forward: expected at most 1 arguments, got 2')
    assert.are.same({ 4, 2 }, seq:forward(x, nil):shape())
  end)

  it("Sequential's constructor and add refuse what they do not take, at the user's line", function()
    local tanh = nn.Tanh()
    err(function() nn.Sequential(tanh, nil, tanh) end, 'Sequential: argument 2 expected a fused.nn module, got nil')
    err(function() nn.Sequential({ tanh, tanh }) end,
        'Sequential: argument 1 expected a fused.nn module, got a table that is not one (a list of modules: write Sequential(unpack(list)))')
    local ok, msg = pcall(function() nn.Sequential(1) end)
    assert.is_false(ok)
    assert.truthy(msg:find('^spec/habits_spec.lua:%d+: '), msg) -- it was Sequential.lua's line
    err(function() nn.Sequential():add(tanh, 1) end, 'Sequential:add: expected at most 1 arguments, got 2')
  end)

  it("Sequential has Torch7's insert, remove, get and size", function()
    local a, b, c = nn.Tanh(), nn.ReLU(), nn.Sigmoid()
    local seq = nn.Sequential(a, c):insert(b, 2)
    assert.are.equal(3, seq:size())
    assert.are.equal(b, seq:get(2))
    assert.are.equal(c, seq:remove())
    assert.are.equal(a, seq:remove(1))
    assert.are.same({ b }, seq.modules)
    seq:insert(c)
    assert.are.equal(c, seq:get(2))
    err(function() seq:get(3) end, "Sequential:get: argument 'index' expected 1..2, got 3")
    err(function() seq:insert(a, 4) end, "Sequential:insert: argument 'index' expected 1..3, got 4")
    err(function() seq:remove(0) end, "Sequential:remove: argument 'index' expected 1..2, got 0")
    err(function() seq:size(1) end, 'Sequential:size: expected at most 0 arguments, got 1')
  end)

  it('an error inside a Sequential names the module that raised it, as Torch7 and PyTorch', function()
    local seq = nn.Sequential((linear()))
    err(function() seq:forward(fused.randn(4, 5):double()) end, "Linear:forward: argument 'input'")
  end)
end)

describe('an optimizer', function()
  it('refuses an argument after its options, and says what PyTorch\'s (params, opts) lacks', function()
    local _, p, g = linear()
    err(function() optim.SGD(p, g, { lr = 1 }, 5) end,
        'SGD: takes (params, grads, opts), got an extra argument 4: the number 5')
    err(function() optim.Adam(p, { lr = 1 }) end,
        "PyTorch's Adam(params, opts)? fused takes the gradients too: local params, grads = model:parameters()")
  end)

  it("refuses step(closure), PyTorch's form, rather than never calling the closure", function()
    local _, p, g = linear()
    local opt, called = optim.SGD(p, g, { lr = 1 }), false
    local before = p[1]:clone()
    err(function() opt:step(function() called = true end) end, 'SGD:step: takes (self), got an extra argument 2: a function')
    assert.is_false(called)
    assert.are.same(before:totable(), p[1]:totable()) -- nothing stepped
    err(function() opt:zero_grad(true) end, 'SGD:zero_grad: takes (self), got an extra argument 2')
    err(function() opt:state_dict(1) end, 'SGD:state_dict: takes (self), got an extra argument 2')
    err(function() opt:load_state_dict(opt:state_dict(), 1) end, 'SGD:load_state_dict: takes (self, state), got an extra argument 3')
  end)

  it('clip_grad_norm refuses an argument after its options', function()
    local _, p, g = linear()
    g[1]:fill_(10)
    err(function() optim.clip_grad_norm(p, 1, {}, 5) end,
        'clip_grad_norm: takes (grads, max_norm, opts), got an extra argument 4: the number 5')
    assert.are.same(10, g[1][{ 1, 1 }]) -- not clipped
  end)

  it('an option of the wrong kind shows what it is (a string "0.1" read as the number 0.1)', function()
    local _, p, g = linear()
    err(function() optim.SGD(p, g, { lr = '0.1' }) end, "SGD: option 'lr' expected a finite number >= 0, got the string \"0.1\"")
    err(function() optim.SGD(p, g, { momentum = '0.9' }) end, "expected a number in [0, 1], got the string \"0.9\"")
    err(function() optim.SGD(p, g, { nesterov = 'yes' }) end, "expected true or false, got the string \"yes\"")
  end)

  it('betas are a list of exactly two numbers', function()
    local _, p, g = linear()
    err(function() optim.Adam(p, g, { betas = { 0.9, 0.999, x = 1 } }) end,
        "Adam: option 'betas' expected two numbers {beta1, beta2}, got a table with the key 'x'")
    err(function() optim.AdamW(p, g, { betas = { 0.9, nil, 0.999 } }) end,
        "AdamW: option 'betas' expected two numbers {beta1, beta2}, got {0.9, nil, 0.999}")
  end)

  it('load_state_dict takes every hyperparameter from the state, or refuses it', function()
    local _, p, g = linear()
    local state = optim.Adam(p, g, { lr = 0.5 }):state_dict()
    local opt = optim.Adam(p, g, { lr = 0.1 })
    state.hyper.lr = nil
    err(function() opt:load_state_dict(state) end,
        "Adam:load_state_dict: argument 'state' field 'hyper' lacks 'lr' (expected every hyperparameter of Adam: betas, eps, lr, weight_decay)")
    state.hyper = {}
    err(function() opt:load_state_dict(state) end, "field 'hyper' lacks 'betas'")
    state.hyper = nil
    err(function() opt:load_state_dict(state) end, "field 'hyper' expected a table from state_dict(), got nil")
    assert.are.equal(0.1, opt.lr)
    local whole = optim.Adam(p, g, { lr = 0.5 }):state_dict()
    opt:load_state_dict(whole)
    assert.are.equal(0.5, opt.lr)
  end)

  it("load_state_dict refuses hyperparameters that clash, as the constructor does", function()
    local _, p, g = linear()
    local opt = optim.SGD(p, g, { lr = 0.5, momentum = 0.9 })
    local state = opt:state_dict()
    state.hyper.nesterov, state.hyper.dampening = true, 0.5
    err(function() opt:load_state_dict(state) end,
        'SGD:load_state_dict: nesterov expected momentum > 0 and dampening 0, got momentum 0.9 and dampening 0.5')
    assert.is_false(opt.nesterov)
  end)

  it('step refuses a gradient replaced by one of another shape or dtype, naming step', function()
    local _, p, g = linear()
    local opt = optim.SGD(p, g, { lr = 1 })
    local before = p[2]:clone()
    g[1] = fused.zeros(5):double()
    err(function() opt:step() end,
        'SGD:step: grads[1] expected the shape, dtype and device of params[1] ([2, 3] float64 cpu), got [5] float64 cpu')
    g[1] = fused.zeros(2, 3)
    err(function() opt:step() end, 'got [2, 3] float32 cpu')
    assert.are.equal(0, opt.step_count)
    assert.are.same(before:totable(), p[2]:totable()) -- no parameter moved
  end)
end)

describe('a conversion to int64 of numbers that are not whole', function()
  it("names the method called (it named copy's 'src') and says to truncate first", function()
    local x = fused.tensor({ 1, 2.5, -3 })
    err(function() x:long() end, "long: expected whole numbers in int64's range, got 2.5 at position 2",
        'write t:trunc() first')
    err(function() x:to('int64') end, 'to: expected whole numbers')
    err(function() x:type('fused.LongTensor') end, 'type: expected whole numbers')
    err(function() x:bfloat16():long() end, 'long: expected whole numbers')
    if helper.has_cuda() then err(function() x:cuda():long() end, 'long: expected whole numbers') end
    err(function() fused.tensor({ 0 / 0 }):long() end, 'got nan at position 1')
    err(function() fused.tensor({ 2 ^ 63 }, { dtype = 'float64' }):long() end, 'got 9.2233720368548e+18')
    assert.are.same({ 1, -3 }, fused.tensor({ 1.9, -3.5 }):trunc():long():totable())
    assert.are.same({ -2 ^ 63 }, fused.tensor({ -2 ^ 63 }, { dtype = 'float64' }):long():totable())
  end)
end)

describe("a PyTorch or Torch7 tensor method that fused writes another way", function()
  it('is an error that says the fused form', function()
    local x = fused.zeros(2, 3)
    err(function() return x:resize_(3, 2) end, "no method or property 'resize_' (tensors are not resized in place: t:reshape(sizes)")
    err(function() return x:resize(6) end, "'resize' (tensors are not resized in place")
    err(function() return x:view_as(x) end, "'view_as' (write t:view(other:shape()))")
    err(function() return x:expand_as(x) end, "'expand_as' (write t:expand(other:shape()))")
    err(function() return x:type_as(x) end, "'type_as' (write t:to(other.dtype))")
    err(function() return x:tolist() end, "'tolist' (write t:totable())")
    err(function() return x.T end, "'T' (write t:t()")
    err(function() return x.grad end, "'grad' (tensors carry no gradient: a module keeps its parameters' in module.grad.<name>")
    err(function() return x:detach() end, "'detach' (tensors carry no gradient")
    err(function() return x:backward() end, "'backward' (tensors have no backward: call module:backward(gradOutput)")
    err(function() return x:cmul(x) end, "'cmul' (write t:mul(y), or t:mul_(y) in place)")
    err(function() return x:viewAs(x) end, "'viewAs' (write t:view(other:shape()))")
    err(function() return x:maskedFill(x:gt(0), 1) end, "'maskedFill' (write t[m] = v or t:masked_fill_(m, v))")
    err(function() return x:index(1, fused.tensor({ 1 }, { dtype = 'int64' })) end, "'index' (write t:index_select(dim, idx))")
    err(function() return x:nosuchmethod() end, "fused.Tensor has no method or property 'nosuchmethod'")
  end)
end)

describe('t[k] with a key that is no index', function()
  it('says what an index is, rather than that the tensor lacks a property', function()
    local x = fused.zeros(2, 3)
    err(function() return x[true] end,
        "fused.Tensor: t[k] expected for k an index (a number), a table of them (t[{1, {2, 3}}]) or a bool mask tensor, got boolean")
    err(function() x[true] = 1 end, 't[k] expected for k an index')
    err(function() return x[1LL] end, 'got ctype<int64_t>')
  end)

  it('a fractional index is not an integer, not out of range', function()
    local x = fused.zeros(2, 3)
    err(function() return x[1.5] end, 'fused.Tensor: index 1.5 for dim 1 is not an integer (indices are whole numbers, 1..2)')
    err(function() return x[{ 1, { 1, 2.5 } }] end, 'index 2.5 for dim 2 is not an integer')
  end)
end)

describe("a fused.Size read at an index it lacks (PyTorch's x.size()[0])", function()
  it('is an error saying dims count from 1, not a nil', function()
    local s = fused.zeros(2, 3):size()
    err(function() return s[0] end, 'fused.Size: index 0 is out of range 1..2 (dims count from 1: size()[1] is the first)')
    err(function() return s[3] end, 'index 3 is out of range 1..2')
    assert.are.same({ 2, 3 }, { s[1], s[2] })
    assert.are.same({ 2, 3 }, { unpack(s) })
    assert.are.equal(6, s:numel())
  end)
end)

describe("a module's mode and conversion methods", function()
  it('take a boolean mode and no argument they do not use', function()
    local seq = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    err(function() seq:train(0) end, "Sequential:train: argument 'mode' expected a boolean, got number")
    err(function() seq:train(true, 1) end, 'Sequential:train: expected at most 1 arguments, got 2')
    for _, name in ipairs({ 'eval', 'zero_grad', 'zeroGradParameters', 'clearState', 'float',
                            'double', 'cpu' }) do
      err(function() seq[name](seq, 1) end, 'expected at most 0 arguments, got 1')
    end
    seq:train(false)
    assert.is_false(seq.modules[2].training)
    seq:train()
    assert.is_true(seq.modules[2].training)
  end)
end)

describe('Dropout', function()
  it("says how to write p when given PyTorch's keyword as a table", function()
    err(function() nn.Dropout({ p = 0.2 }) end,
        "Dropout: argument 'p' expected a probability in [0, 1], got a table (write Dropout(0.2), not Dropout({p = 0.2}))")
    err(function() nn.Dropout('0.2') end, 'got the string "0.2"')
  end)
end)
