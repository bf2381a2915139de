-- Torch7's nn inside `fused th` (lua/fused/th/nn.lua): every class's gradients against central
-- differences in float64, the criterions against PyTorch (spec/data/th/nn/gen.py), and the
-- Module protocol: getParameters' views, clone's sharing, type, training and evaluate.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = require 'fused.th.nn'
local class = require 'fused.th.class'
local J = require 'spec.th_jacobian'

local function r(...) return fused.randn({ ... }, { dtype = 'float64' }) end
local function positive(...) return fused.rand({ ... }, { dtype = 'float64' }):add_(0.5) end
local data = setmetatable({}, { __index = function(t, name)
  t[name] = fused.load_npy('spec/data/th/nn/' .. name .. '.npy')
  return t[name]
end })

describe('th nn gradients (float64, central differences)', function()
  fused.manual_seed(3)
  local cases = {
    { 'Linear', function() return nn.Linear(4, 3), r(5, 4) end },
    { 'Linear of a vector', function() return nn.Linear(4, 3), r(4) end },
    { 'Linear without bias', function() return nn.Linear(4, 3, false), r(2, 4) end },
    { 'LookupTable', function() return nn.LookupTable(5, 3), fused.tensor({ { 1, 3, 3 }, { 5, 2, 1 } }):long() end },
    { 'Tanh', function() return nn.Tanh(), r(3, 4) end },
    { 'Sigmoid', function() return nn.Sigmoid(), r(3, 4) end },
    { 'ReLU', function() return nn.ReLU(), r(3, 4) end },
    { 'Abs', function() return nn.Abs(), r(3, 4) end },
    { 'Square', function() return nn.Square(), r(3, 4) end },
    { 'Sqrt', function() return nn.Sqrt(), positive(3, 4) end },
    { 'Power', function() return nn.Power(3), r(3, 4) end },
    { 'Exp', function() return nn.Exp(), r(3) end },
    { 'Log', function() return nn.Log(), positive(3) end },
    { 'HardTanh', function() return nn.HardTanh(), r(3, 4) end },
    { 'MulConstant', function() return nn.MulConstant(2.5), r(3) end },
    { 'AddConstant', function() return nn.AddConstant(2), r(3) end },
    { 'SoftMax', function() return nn.SoftMax(), r(3, 4) end },
    { 'LogSoftMax', function() return nn.LogSoftMax(), r(3, 4) end },
    { 'LogSoftMax of a vector', function() return nn.LogSoftMax(), r(4) end },
    { 'Dropout in evaluation', function() local d = nn.Dropout(0.3) d:evaluate() return d, r(3, 4) end },
    { 'View', function() return nn.View(2, 6), r(3, 12) end },
    { 'View with -1', function() return nn.View(-1):setNumInputDims(2), r(3, 2, 2) end },
    { 'Reshape', function() return nn.Reshape(4, 2), r(3, 8) end },
    { 'Identity', function() return nn.Identity(), r(2) end },
    { 'Narrow', function() return nn.Narrow(2, 2, 2), r(3, 4) end },
    { 'Sum', function() return nn.Sum(2), r(3, 4) end },
    { 'Mean', function() return nn.Mean(1), r(3, 4) end },
    { 'CAddTable', function() return nn.CAddTable(), { r(2, 3), r(2, 3), r(2, 3) } end },
    { 'CSubTable', function() return nn.CSubTable(), { r(2, 3), r(2, 3) } end },
    { 'CMulTable', function() return nn.CMulTable(), { r(2, 3), r(2, 3), r(2, 3) } end },
    { 'JoinTable', function() return nn.JoinTable(2), { r(2, 3), r(2, 1) } end },
    { 'SplitTable', function() return nn.SplitTable(2), r(2, 3) end },
    { 'SelectTable', function() return nn.SelectTable(-1), { r(2), r(3) } end },
    { 'NarrowTable', function() return nn.NarrowTable(2, 2), { r(2), r(3), r(1) } end },
    { 'Sequential', function() return nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2)), r(5, 3) end },
    { 'ConcatTable', function() return nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Identity()), r(2, 3) end },
    { 'ParallelTable', function() return nn.ParallelTable():add(nn.Linear(3, 2)):add(nn.Tanh()), { r(2, 3), r(2, 2) } end },
  }
  for _, case in ipairs(cases) do
    it(case[1], function()
      local input_error, param_error = J.errors(case[2]())
      assert.is_true(input_error < 1e-7, case[1] .. ": input's gradient off by " .. input_error)
      assert.is_true(param_error < 1e-7, case[1] .. ": parameters' gradient off by " .. param_error)
    end)
  end
end)

describe('th nn criterions', function()
  local x, target, weights = data.x, data.target, data.weights
  local cases = {
    { 'ClassNLLCriterion', nn.ClassNLLCriterion(), x, target, 'nll' },
    { 'ClassNLLCriterion without sizeAverage', nn.ClassNLLCriterion(nil, false), x, target, 'nll_sum' },
    { 'ClassNLLCriterion with weights', nn.ClassNLLCriterion(weights), x, target, 'nll_weights' },
    { 'CrossEntropyCriterion', nn.CrossEntropyCriterion(), x, target, 'ce' },
    { 'CrossEntropyCriterion with weights', nn.CrossEntropyCriterion(weights), x, target, 'ce_weights' },
    { 'MSECriterion', nn.MSECriterion(), x, data.y, 'mse' },
    { 'MSECriterion without sizeAverage', nn.MSECriterion(false), x, data.y, 'mse_sum' },
    { 'BCECriterion', nn.BCECriterion(), data.p, data.t, 'bce' },
    { 'BCECriterion with weights, summed', nn.BCECriterion(weights, false), data.p, data.t, 'bce_weights_sum' },
  }
  for _, case in ipairs(cases) do
    it(case[1] .. " gives PyTorch's loss and gradient within 1e-10", function()
      local crit, input, t, name = case[2], case[3], case[4], case[5]
      local loss = crit:forward(input, t)
      assert.equals(loss, crit.output)
      assert.is_true(math.abs(loss - data[name .. '_loss']:item()) < 1e-10, name .. ' loss ' .. loss)
      helper.assert_close(crit:backward(input, t), data[name .. '_grad'], 1e-10, name .. ' gradient')
    end)
  end

  it('ClassNLLCriterion takes one vector and a class number, as Torch7', function()
    local crit = nn.ClassNLLCriterion()
    assert.equals(-x[2][5], crit:forward(x[2], 5))
    assert.same({ 0, 0, 0, 0, -1 }, crit:backward(x[2], 5):totable())
  end)
end)

describe('th nn Module protocol', function()
  it('presets output and gradInput to empty tensors and train to true', function()
    local m = nn.Linear(2, 3)
    assert.equals(0, m.output:numel())
    assert.equals(0, m.gradInput:numel())
    assert.equals('float64', m.weight.dtype) -- Torch7's default DoubleTensor
    assert.is_true(m.train)
    m:evaluate()
    assert.is_false(m.train)
    m:training()
    assert.is_true(m.train)
  end)

  it('training() and evaluate() reach every module of a container; Dropout reads train', function()
    local d = nn.Dropout(0.5)
    local m = nn.Sequential():add(nn.Linear(4, 4)):add(d)
    m:evaluate()
    assert.is_false(d.train)
    local x = r(8, 4)
    assert.same(m.modules[1]:forward(x):totable(), m:forward(x):totable())
    m:training()
    local y = d:forward(fused.ones(1000, { dtype = 'float64' }))
    local zeros = fused.sum(fused.eq(y, 0))
    assert.is_true(zeros > 400 and zeros < 600, 'zeros: ' .. zeros)
    assert.equals(1000 - zeros, fused.sum(fused.eq(y, 2))) -- the others scaled by 1/(1-p)
  end)

  it('backward scales the parameter gradients by scale and adds into them', function()
    local m, x, g = nn.Linear(3, 2), r(4, 3), r(4, 2)
    m:zeroGradParameters()
    m:backward(x, g)
    local once = m.gradWeight:clone()
    m:backward(x, g, 0.5)
    helper.assert_close(m.gradWeight, fused.mul(once, 1.5), 1e-12, 'gradWeight')
  end)

  it('updateParameters and accUpdateGradParameters step the weights by -lr times the gradient', function()
    local m, x, g = nn.Linear(3, 2), r(4, 3), r(4, 2)
    local w = m.weight:clone()
    m:zeroGradParameters()
    m:forward(x)
    m:backward(x, g)
    local expected = fused.sub(w, fused.mul(m.gradWeight, 0.1))
    local c = m:clone()
    m:updateParameters(0.1)
    helper.assert_close(m.weight, expected, 1e-12, 'updateParameters')
    c:zeroGradParameters()
    c:accUpdateGradParameters(x, g, 0.1)
    helper.assert_close(c.weight, expected, 1e-12, 'accUpdateGradParameters')
    assert.equals(0, fused.sum(fused.abs(c.gradWeight)))
  end)

  it('parameters() gives {weight, bias}, {gradWeight, gradBias}, and nil without any', function()
    local m = nn.Linear(2, 3)
    local p, g = m:parameters()
    assert.equals(m.weight, p[1])
    assert.equals(m.bias, p[2])
    assert.equals(m.gradWeight, g[1])
    assert.equals(m.gradBias, g[2])
    assert.is_nil(nn.Tanh():parameters())
  end)

  it('lists, finds and applies over modules, and prints as Torch7', function()
    local inner = nn.Sequential():add(nn.Linear(2, 2))
    local m = nn.Sequential():add(inner):add(nn.Tanh()):add(nn.Linear(2, 1))
    assert.equals(5, #m:listModules())
    local found, containers = m:findModules('nn.Linear')
    assert.equals(2, #found)
    assert.equals(inner, containers[1])
    assert.equals(m, containers[2])
    local n = 0
    m:apply(function() n = n + 1 end)
    assert.equals(5, n)
    assert.equals('nn.Sequential {\n  [input -> (1) -> (2) -> (3) -> output]\n  (1): nn.Sequential {\n'
                  .. '    [input -> (1) -> output]\n    (1): nn.Linear(2 -> 2)\n  }\n  (2): nn.Tanh\n'
                  .. '  (3): nn.Linear(2 -> 1)\n}', tostring(m))
  end)

  it('type() converts every tensor, float() and double() as Torch7', function()
    local m = nn.Sequential():add(nn.Linear(2, 3)):add(nn.Tanh())
    m:float()
    assert.equals('torch.FloatTensor', m:type())
    assert.equals('float32', m.modules[1].weight.dtype)
    assert.equals('float32', m.modules[1].gradBias.dtype)
    assert.equals('float32', m:forward(fused.ones(1, 2)).dtype)
    local lookup = nn.LookupTable(4, 2):float()
    assert.equals('float32', lookup.gradWeight.dtype)
    assert.equals('float32', lookup:forward(fused.tensor({ 4, 1 })).dtype) -- indices as Torch7 programs give them
    m:double()
    assert.equals('float64', m.modules[1].bias.dtype)
    assert.has_error(function() m:type('torch.IntTensor') end)
  end)

  it('a class of torch.class with parent nn.Module gets the protocol', function()
    local Scale = class.class('nn.ThSpecScale', 'nn.Module')
    function Scale:__init(n)
      nn.Module.__init(self)
      self.weight, self.gradWeight = fused.ones({ n }, { dtype = 'float64' }), fused.zeros({ n }, { dtype = 'float64' })
    end
    function Scale:updateOutput(input)
      self.output = fused.mul(input, self.weight)
      return self.output
    end
    function Scale:updateGradInput(input, gradOutput)
      self.gradInput = fused.mul(gradOutput, self.weight)
      return self.gradInput
    end
    function Scale:accGradParameters(input, gradOutput, scale)
      self.gradWeight:add_(fused.sum(fused.mul(gradOutput, input), 1):view(-1), { alpha = scale })
    end
    assert.equals(nn.ThSpecScale, rawget(nn, 'ThSpecScale'))
    local m = nn.Sequential():add(nn.Linear(3, 4)):add(nn.ThSpecScale(4))
    m.modules[2].weight:uniform_(0.5, 1.5)
    local input_error, param_error = J.errors(m, r(2, 3))
    assert.is_true(input_error < 1e-7 and param_error < 1e-7)
  end)
end)

describe('th nn getParameters', function()
  it('returns flat tensors that the parameters view: a step on them moves the module', function()
    local m = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2))
    local w1, b2 = m.modules[1].weight, m.modules[3].bias
    local before = w1:clone()
    local p, g = m:getParameters()
    assert.equals(3 * 4 + 4 + 4 * 2 + 2, p:numel())
    assert.equals(p:numel(), g:numel())
    assert.equals(w1, m.modules[1].weight) -- the same Lua objects, now views
    assert.same(before:totable(), w1:totable())
    p:add_(1)
    helper.assert_close(w1, fused.add(before, 1), 1e-15, 'weight moved by the flat step')
    p:narrow(1, p:numel(), 1):fill_(7)
    assert.equals(7, b2[2])
    local x = r(5, 3)
    m:zeroGradParameters()
    m:forward(x)
    m:backward(x, r(5, 2))
    assert.is_true(fused.sum(fused.abs(g)) > 0)
    helper.assert_close(g:narrow(1, 1, 12):view(4, 3), m.modules[1].gradWeight, 0, 'gradWeight in the flat gradient')
  end)

  it('counts a tensor shared by clone(...) once, and a step moves every sharer', function()
    local a = nn.Linear(3, 2)
    local b = a:clone('weight', 'bias', 'gradWeight', 'gradBias')
    local m = nn.Sequential():add(a):add(nn.Tanh()):add(b)
    local p, g = m:getParameters()
    assert.equals(8, p:numel())
    assert.equals(8, g:numel())
    p:zero_()
    assert.equals(0, fused.sum(fused.abs(b.weight)))
    assert.equals(0, fused.sum(fused.abs(a.bias)))
  end)

  it('refuses parameters shared without their gradients, saying what to share', function()
    local a = nn.Linear(3, 2)
    local m = nn.Sequential():add(a):add(a:clone('weight', 'bias'))
    assert.has_error(function() m:getParameters() end,
      "nn.Sequential:getParameters: the parameters (8 elements) and their gradients (16) are not laid out alike: "
      .. "a module sharing weight or bias must share gradWeight or gradBias too (clone('weight', 'bias', 'gradWeight', 'gradBias'))")
  end)

  it('holds the flat layout in a clone made after it: the clone views a flat tensor of its own', function()
    local m = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Linear(4, 2))
    local p = m:getParameters()
    local c = m:clone()
    local cp = c:getParameters()
    assert.same(p:totable(), cp:totable())
    cp:fill_(0)
    assert.is_true(fused.sum(fused.abs(p)) > 0) -- the clone's memory is its own
    assert.equals(0, fused.sum(fused.abs(c.modules[2].weight)))
  end)
end)

describe('th nn clone and share', function()
  it('clone() copies deeply; clone(names) shares those tensors with the original', function()
    local m = nn.Linear(3, 2)
    local copy, tied = m:clone(), m:clone('weight', 'gradWeight')
    assert.equals('nn.Linear', class.typename(copy))
    copy.weight:fill_(1)
    assert.is_true(fused.sum(fused.eq(m.weight, 1)) < 6)
    tied.weight:fill_(2)
    assert.equals(12, fused.sum(m.weight))
    tied.bias:fill_(3)
    assert.is_true(fused.sum(fused.eq(m.bias, 3)) == 0)
  end)

  it('share(m, names) makes the tensors one memory, the holders keeping their objects', function()
    local a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    local w = b.weight
    b:share(a, 'weight')
    assert.equals(w, b.weight)
    a.weight:fill_(5)
    assert.equals(20, fused.sum(w))
  end)
end)

describe('th nn with fused modules (nn.Native)', function()
  it("takes fused.nn.Linear in a container, its gradients those of Torch7's Linear", function()
    local native = fused.nn.Linear(3, 2, { dtype = 'float64' })
    local th = nn.Linear(3, 2)
    th.weight:copy_(native.weight)
    th.bias:copy_(native.bias)
    local m1 = nn.Sequential():add(native):add(nn.Tanh())
    local m2 = nn.Sequential():add(th):add(nn.Tanh())
    assert.equals('nn.Native', class.typename(m1.modules[1]))
    local x, g = r(4, 3), r(4, 2)
    helper.assert_close(m1:forward(x), m2:forward(x), 1e-12, 'output')
    m1:zeroGradParameters()
    m2:zeroGradParameters()
    helper.assert_close(m1:backward(x, g), m2:backward(x, g), 1e-12, 'gradInput')
    local p1, g1 = m1:getParameters()
    local p2, g2 = m2:getParameters()
    helper.assert_close(g1, g2, 1e-12, 'flat gradients')
    p1:zero_()
    assert.equals(0, fused.sum(fused.abs(native.weight)))
    m1:evaluate()
    assert.is_false(native.training)
  end)
end)

describe('th nn errors', function()
  it('names the class and the argument', function()
    assert.has_error(function() nn.Sequential():add(42) end,
      "nn.Sequential:add: argument 'module' expected an nn module, got number")
    assert.has_error(function() nn.Linear(3, 2):forward(r(2, 2, 3)) end,
      'nn.Linear: input expected a vector or a matrix (a batch of rows), got 3 dims')
    assert.has_error(function() nn.Dropout(1) end,
      'nn.Dropout: <Dropout> illegal percentage, must be 0 <= p < 1 (got 1)')
    assert.has_error(function() nn.SelectTable(3):forward({ r(1) }) end,
      'nn.SelectTable: index 3 is out of range for a table of 1')
    assert.has_error(function() nn.View(2, 0) end, "nn.View: argument 'size' 2 expected a positive integer or -1, got 0")
  end)
end)
