-- Module:named_parameters, state_dict and load_state_dict: PyTorch's names for every module,
-- one order shared with parameters(), copies into the live parameters, and strict loading.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn
local Module = nn.Module

local F64 = { dtype = 'float64' }

-- A model of child modules, named by their fields as PyTorch's named_modules are.
local Net = Module:extend('Net')
function Net:__init(opts)
  self.rnn = nn.LLTM(3, 4, opts)
  self.head = nn.Linear(4, 2, opts)
  self.criterion = nn.MSELoss()
end

describe('Module:state_dict', function()
  it("has PyTorch's names for every module, children prefixed by their field", function()
    for _, case in ipairs({
      { nn.Linear(3, 2), { 'bias', 'weight' } },
      { nn.Embedding(5, 2), { 'weight' } },
      { nn.LLTMCell(3, 4), { 'bias', 'weight' } },
      { nn.LLTMCellComposed(3, 4), { 'bias', 'weight' } },
      { nn.LLTM(3, 4), { 'bias', 'weight' } },
      { nn.Recurrent(nn.LLTMCell(3, 4)), { 'cell.bias', 'cell.weight' } },
      { nn.MSELoss(), {} },
      { nn.CrossEntropyLoss(), {} },
      { Net(), { 'head.bias', 'head.weight', 'rnn.bias', 'rnn.weight' } },
    }) do
      assert.are.same(case[2], helper.sorted_keys(case[1]:state_dict()), case[1].__name)
    end
  end)

  it('holds the live parameters, in the order of named_parameters and parameters()', function()
    local net = Net()
    local params, grads = net:parameters()
    local order, state = {}, net:state_dict()
    for name, p, g in net:named_parameters() do
      order[#order + 1] = name
      assert.are.equal(params[#order], p)
      assert.are.equal(grads[#order], g)
      assert.are.equal(state[name], p)
    end
    assert.are.same({ 'head.weight', 'head.bias', 'rnn.weight', 'rnn.bias' }, order)
  end)
end)

describe('Module:load_state_dict', function()
  it("copies another model's values into this one's parameters, converting the dtype", function()
    local from, to = Net(), Net(F64)
    local weight = to.rnn.weight
    assert.are.same({}, to:load_state_dict(from:state_dict()))
    assert.are.equal(weight, to.rnn.weight) -- the same tensor, written into
    assert.are.equal('float64', to.rnn.weight.dtype)
    local xs = fused.randn({ 5, 2, 3 })
    helper.assert_close(to.head:forward((select(2, to.rnn:forward(xs:double())))):float(),
                        from.head:forward((select(2, from.rnn:forward(xs)))), 1e-6, 'output')
    from.head.bias:fill_(7) -- copies, not shared
    assert.are_not.equal(7, to.head.bias:totable()[1])
  end)

  it('goes through a safetensors file and back', function()
    local from, to = Net(F64), Net(F64)
    local path = os.tmpname()
    fused.save(path, from:state_dict())
    to:load_state_dict((fused.load(path)))
    os.remove(path)
    for name, p in from:named_parameters() do assert.are.same(p:totable(), to:state_dict()[name]:totable(), name) end
  end)

  it('is strict: names every missing, unexpected or misshapen key, and copies nothing', function()
    local net = Net()
    local before = net.head.weight:totable()
    local state = {}
    for k, v in pairs(Net():state_dict()) do state[k] = v end
    state['rnn.bias'] = nil
    state['head.weight'] = fused.zeros({ 2, 5 })
    state['decoder.bias'] = fused.zeros({ 3 })
    helper.assert_error(function() net:load_state_dict(state) end,
                        "Net:load_state_dict: argument 'state_dict' does not fit the module: ",
                        "key 'head.weight' expected shape [2, 4], got [2, 5]",
                        "missing key 'rnn.bias' (expected shape [12])",
                        "unexpected key 'decoder.bias' (got shape [3])")
    assert.are.same(before, net.head.weight:totable())
    helper.assert_error(function() net:load_state_dict({ ['head.weight'] = 1 }) end,
                        "key 'head.weight' expected shape [2, 4], got number")
  end)

  it('with {strict = false}, returns the missing and unexpected keys; a shape is still checked', function()
    local net, other = Net(), Net()
    local missing, unexpected = net:load_state_dict({ ['head.bias'] = other.head.bias,
                                                      ['extra'] = fused.zeros({ 1 }) }, { strict = false })
    assert.are.same({ 'head.weight', 'rnn.weight', 'rnn.bias' }, missing)
    assert.are.same({ 'extra' }, unexpected)
    assert.are.same(other.head.bias:totable(), net.head.bias:totable())
    helper.assert_error(function() net:load_state_dict({ ['head.bias'] = fused.zeros({ 3 }) }, { strict = false }) end,
                        "key 'head.bias' expected shape [2], got [3]")
  end)

  it('rejects what is not a state_dict, and unknown options', function()
    helper.assert_error(function() nn.Linear(2, 2):load_state_dict('weights.safetensors') end,
                        "Linear:load_state_dict: argument 'state_dict' expected a table {name = tensor}, got string")
    helper.assert_error(function() nn.Linear(2, 2):load_state_dict({}, { strcit = false }) end,
                        "Linear:load_state_dict: unknown option 'strcit' (expected one of: strict)")
  end)
end)
