-- One way to declare a parameter (Module:parameter) and one rule for its gradient: the gradient
-- of parameter `name` is module.grad[name], with Torch7's gradWeight and gradBias as aliases of
-- grad.weight and grad.bias. Every fused.nn module, found at run time, is walked: its
-- parameters, their gradients, state_dict, zero_grad, shared_clone and to all see one list.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn

local F64 = { dtype = 'float64' }
local STACKED = { num_layers = 2, bidirectional = true, dtype = 'float64' }
local function cell_spec() return fused.cell.define(dofile('examples/cells/janet.lua')(fused.cell)) end

-- Each module's constructor arguments (a function: made anew per module) and how many
-- parameters it has; a module not here is made with no arguments and must have none.
local MODULES = {
  Linear = { function() return 3, 2, F64 end, 2 },
  Embedding = { function() return 5, 2, F64 end, 1 },
  LayerNorm = { function() return 3, F64 end, 2 },
  GraphConv = { function() return 3, 2, F64 end, 2 },
  LLTMCell = { function() return 3, 2, F64 end, 2 },
  LLTMCellComposed = { function() return 3, 2, F64 end, 2 },
  LSTMCell = { function() return 3, 2, F64 end, 4 },
  GRUCell = { function() return 3, 2, F64 end, 4 },
  RNNCell = { function() return 3, 2, { cell = cell_spec(), dtype = 'float64' } end, 4 },
  LSTM = { function() return 3, 2, STACKED end, 16 },
  GRU = { function() return 3, 2, STACKED end, 16 },
  LLTM = { function() return 3, 2, STACKED end, 8 },
  RNN = { function() return 3, 2, { cell = cell_spec(), num_layers = 2, dtype = 'float64' } end, 8 },
  Recurrent = { function() return nn.LSTMCell(3, 2, F64) end, 4 },
  Sequential = { function() return nn.Linear(3, 2, F64), nn.Tanh(), nn.LayerNorm(2, F64) end, 4 },
  Softmax = { function() return 2 end, 0 },
  LogSoftmax = { function() return 2 end, 0 },
}

-- The module that owns the parameter named `path` ('0.weight', 'cell.bias_ih') and its own
-- name for it.
local function owner(m, path)
  local first, rest = path:match('^([^.]+)%.(.+)$')
  if not first then return m, path end
  local children, names = m:children()
  for i, name in ipairs(names) do
    if name == first then return owner(children[i], rest) end
  end
  error('no child ' .. first .. ' in ' .. m.__name)
end

local function same_kind(a, b)
  return table.concat(a:shape(), 'x') == table.concat(b:shape(), 'x') and a.dtype == b.dtype
    and a.device == b.device
end

local function list(m)
  local names, params, grads = {}, {}, {}
  for name, p, g in m:named_parameters() do
    names[#names + 1], params[#params + 1], grads[#grads + 1] = name, p, g
  end
  return names, params, grads
end

describe('every fused.nn module', function()
  for _, class_name in ipairs(helper.nn_module_names()) do
    local entry = MODULES[class_name] or { function() end, 0 }
    local function make() return nn[class_name](entry[1]()) end

    it(class_name .. ': each parameter has its gradient at grad[name], and aliases are the same tensors', function()
      local m = make()
      local names, params, grads = list(m)
      assert.are.equal(entry[2], #names, class_name .. ' has the parameters it should')
      for i, path in ipairs(names) do
        local mod, name = owner(m, path)
        assert.is_true(rawequal(mod[name], params[i]), path .. ' is the field of its name')
        assert.is_true(rawequal(mod.grad[name], grads[i]), path .. "'s gradient is grad." .. name)
        assert.is_false(rawequal(params[i], grads[i]), path)
        assert.is_true(same_kind(params[i], grads[i]), path .. ': the gradient is shaped as the parameter')
        if name == 'weight' then assert.is_true(rawequal(mod.gradWeight, grads[i]), path .. ' gradWeight') end
        if name == 'bias' then assert.is_true(rawequal(mod.gradBias, grads[i]), path .. ' gradBias') end
      end
      -- no field holds a gradient under another name, in the module or a child
      local function no_other_names(mod)
        for k, v in pairs(mod) do
          if fused.is_tensor(v) and k:match('^grad') then
            assert.is_true(k == 'gradWeight' or k == 'gradBias', mod.__name .. ' has a field ' .. k)
          end
        end
        for _, child in ipairs(mod:children()) do no_other_names(child) end
      end
      no_other_names(m)
      local p_list, g_list = m:parameters()
      for i = 1, #names do
        assert.is_true(rawequal(p_list[i], params[i]) and rawequal(g_list[i], grads[i]), names[i])
      end
    end)

    it(class_name .. ': state_dict has named_parameters\' names, and loads back', function()
      local m = make()
      local names = list(m)
      table.sort(names)
      assert.are.same(names, helper.sorted_keys(m:state_dict()))
      local other = make()
      other:load_state_dict(m:state_dict())
      local _, a = list(m)
      local _, b = list(other)
      for i = 1, #a do helper.assert_close(b[i], a[i], 0, names[i]) end
    end)

    it(class_name .. ': zero_grad zeroes every gradient', function()
      local m = make()
      local _, _, grads = list(m)
      for _, g in ipairs(grads) do g:fill_(1) end
      m:zero_grad()
      for i, g in ipairs(grads) do assert.are.equal(0, g:abs():sum(), 'gradient ' .. i) end
    end)

    it(class_name .. ': shared_clone shares every parameter and gradient', function()
      local m = make()
      local names, params, grads = list(m)
      local c = m:shared_clone()
      assert.are.equal(getmetatable(m), getmetatable(c))
      assert.is_false(rawequal(m.buffers, c.buffers))
      local c_names, c_params, c_grads = list(c)
      assert.are.same(names, c_names)
      for i = 1, #names do
        assert.is_true(rawequal(params[i], c_params[i]) and rawequal(grads[i], c_grads[i]), names[i])
        local mod, name = owner(c, names[i])
        if name == 'weight' then assert.is_true(rawequal(mod.gradWeight, grads[i]), names[i]) end
        if name == 'bias' then assert.is_true(rawequal(mod.gradBias, grads[i]), names[i]) end
      end
      assert.is_true(rawequal(c, m:shared_clone(c)), 'an earlier clone is re-pointed')
    end)

    it(class_name .. ': to converts every parameter and gradient in place', function()
      local m = make()
      local _, params, grads = list(m)
      m:to('float32')
      local _, p2, g2 = list(m)
      for i = 1, #params do
        assert.is_true(rawequal(params[i], p2[i]) and rawequal(grads[i], g2[i]), 'the same tensors')
        assert.are.equal('float32', params[i].dtype)
        assert.are.equal('float32', grads[i].dtype)
      end
    end)
  end
end)

describe('a shared_clone', function()
  it('of a container or a recurrent layer with dropout runs on buffers of its own, adding into the shared gradients', function()
    local x, xs = fused.randn({ 4, 3 }, F64), fused.randn({ 5, 4, 3 }, F64)
    for _, case in ipairs({
      { nn.Sequential(nn.Linear(3, 2, F64), nn.Tanh(), nn.LayerNorm(2, F64)), x },
      { nn.LSTM(3, 2, { num_layers = 2, dropout = 0.5, dtype = 'float64' }), xs },
    }) do
      local m, input = case[1], case[2]
      local c = m:shared_clone()
      fused.manual_seed(7)
      local want = m:forward(input):clone()
      local once = { m:backward(fused.ones(want:shape(), F64)) }
      local _, _, grads = list(m)
      local before = {}
      for i, g in ipairs(grads) do before[i] = g:clone() end
      fused.manual_seed(7)
      helper.assert_close(c:forward(input), want, 0, m.__name .. ' forward')
      helper.assert_close(c:backward(fused.ones(want:shape(), F64)), once[1], 0, m.__name .. ' backward')
      for i, g in ipairs(grads) do helper.assert_close(g, before[i] * 2, 1e-14, m.__name .. ' gradient ' .. i) end
    end
  end)
end)

describe('Module:parameter', function()
  it('declares a parameter, zeros until initialised, and its zero gradient', function()
    local Scale = nn.Module:extend('Scale')
    function Scale:__init(n)
      self:parameter('weight', { n }, F64):fill_(2)
      self:parameter('shift', { n }, F64)
    end
    local m = Scale(3)
    assert.are.same({ 2, 2, 2 }, m.weight:totable())
    assert.are.same({ 0, 0, 0 }, m.shift:totable())
    assert.are.same({ 0, 0, 0 }, m.grad.shift:totable())
    assert.are.equal('float64', m.grad.weight.dtype)
    assert.is_true(rawequal(m.gradWeight, m.grad.weight))
    assert.is_nil(m.gradShift) -- Torch7 aliases only what Torch7 named
    assert.are.same({ 'weight', 'shift' }, list(m))
  end)

  it('rejects a name twice, a name that is not an identifier, a bad shape or dtype', function()
    local m = nn.Module:extend('Twice')()
    m:parameter('weight', { 2 })
    helper.assert_error(function() m:parameter('weight', { 2 }) end,
                        "Twice:parameter: argument 'name': 'weight' is already a parameter")
    helper.assert_error(function() m:parameter('a.b', { 2 }) end,
                        "Twice:parameter: argument 'name' expected an identifier (a string), got 'a.b'")
    helper.assert_error(function() m:parameter(nil, { 2 }) end,
                        "Twice:parameter: argument 'name' expected an identifier (a string), got nil")
    helper.assert_error(function() m:parameter('bias', { -1 }) end, "Twice:parameter: argument 'shape'")
    helper.assert_error(function() m:parameter('bias', { 2 }, { dtype = 'half' }) end,
                        "Twice:parameter: option 'dtype' expected")
  end)

  it("leaves Torch7's protocol as it was: weight and gradWeight set by hand are the parameters", function()
    local Hand = nn.Module:extend('Hand')
    function Hand:__init()
      self.weight, self.gradWeight = fused.ones(2), fused.zeros(2)
      self.bias, self.gradBias = fused.ones(1), fused.zeros(1)
    end
    local m = Hand()
    local names, params, grads = list(m)
    assert.are.same({ 'weight', 'bias' }, names)
    assert.is_true(rawequal(m.gradWeight, grads[1]) and rawequal(m.bias, params[2]))
    grads[1]:fill_(1)
    m:zero_grad()
    assert.are.same({ 0, 0 }, m.gradWeight:totable())
    local c = m:shared_clone()
    assert.is_true(rawequal(c.weight, m.weight) and rawequal(c.gradBias, m.gradBias))
    m:to('float64')
    assert.is_true(rawequal(params[1], m.weight))
    assert.are.equal('float64', m.gradWeight.dtype)
  end)
end)
