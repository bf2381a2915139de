-- Torch7's nn Module protocol inside `fused th` (lua/fused/th/nn.lua): output and gradInput,
-- training and evaluate, getParameters' views, clone's and share's sharing, type and the cuda
-- device, fused's own modules in Torch7 containers (nn.Native), the trainer and the errors. The
-- classes' gradients and references: spec/th_nn_layers_spec.lua.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = require 'fused.th.nn'
local class = require 'fused.th.class'
local J = require 'spec.th_jacobian'

local function r(...) return fused.randn({ ... }, { dtype = 'float64' }) end

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

  it("accUpdateGradParameters of every container steps each module as updateParameters after backward", function()
    require 'fused.th.nngraph'
    local x = nn.Identity()()
    local graph_model = nn.gModule({ x }, { nn.Linear(4, 2)(nn.Tanh()(nn.Linear(3, 4)(x))) })
    local models = {
      nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(fused.nn.Linear(4, 2, { dtype = 'float64' })),
      nn.Sequential():add(nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Linear(3, 2))):add(nn.CAddTable()),
      nn.Sequential():add(nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Identity()))
        :add(nn.ParallelTable():add(nn.Tanh()):add(nn.Linear(3, 2))):add(nn.CAddTable()),
      graph_model,
    }
    for k, m in ipairs(models) do
      local input, g = r(5, 3), r(5, 2)
      local stepped = m:clone()
      m:zeroGradParameters()
      m:forward(input)
      m:backward(input, g)
      m:updateParameters(0.1)
      stepped:zeroGradParameters()
      stepped:forward(input)
      stepped:updateGradInput(input, g)
      stepped:accUpdateGradParameters(input, g, 0.1)
      local p1, p2 = m:getParameters(), stepped:getParameters()
      helper.assert_close(p2, p1, 1e-12, 'model ' .. k)
      local _, grads = stepped:getParameters()
      assert.equals(0, fused.sum(fused.abs(grads)), 'model ' .. k .. ': gradients untouched')
    end
  end)

  it("trains with nn.StochasticGradient as nn's README does (XOR)", function()
    fused.manual_seed(2)
    local mlp = nn.Sequential():add(nn.Linear(2, 20)):add(nn.Tanh()):add(nn.Linear(20, 1))
    local criterion = nn.MSECriterion()
    local dataset = {}
    function dataset:size() return 100 end
    for i = 1, dataset:size() do
      local input = r(2)
      local output = fused.ones({ 1 }, { dtype = 'float64' })
      if input[1] * input[2] > 0 then output[1] = -1 end
      dataset[i] = { input, output }
    end
    local trainer = nn.StochasticGradient(mlp, criterion)
    trainer.learningRate = 0.05
    trainer.maxIteration = 40
    local errors, printed = {}, {}
    trainer.hookIteration = function(_, iteration, err) errors[iteration] = err end
    local print_ = _G.print
    _G.print = function(...) printed[#printed + 1] = table.concat({ ... }, ' ') end
    local ok, err = pcall(trainer.train, trainer, dataset)
    _G.print = print_
    assert(ok, err)
    assert.equals(40, #errors)
    assert.is_true(errors[40] < errors[1] * 0.6, string.format('error %g -> %g', errors[1], errors[40]))
    assert.equals('# StochasticGradient: training', printed[1])
    assert.equals('# training error = ' .. errors[40], printed[#printed])
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

  it("runs a View and a Reshape whose sizes are LongStorages (1-D int64), as Torch7's files hold them", function()
    local view, reshape = nn.View(2, 6), nn.Reshape(4, 3)
    view.size, reshape.size = fused.tensor({ 2, 6 }):long(), fused.tensor({ 4, 3 }):long()
    assert.same({ 3, 2, 6 }, view:forward(r(3, 12)):shape())
    assert.same({ 3, 4, 3 }, reshape:forward(r(3, 12)):shape())
    assert.equals('nn.View(2, 6)', tostring(view))
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

describe('th nn with fused modules: clone and share', function()
  it("clone() copies a fused module deeply; clone('weight', 'bias', ...) shares its parameters", function()
    local m = nn.Sequential():add(fused.nn.LSTM(3, 4, { dtype = 'float64' })):add(nn.View(-1, 4)):add(nn.Linear(4, 2))
    local x, g = r(5, 2, 3), r(10, 2)
    local copy = m:clone()
    helper.assert_close(copy:forward(x), m:forward(x), 0, 'output of the copy')
    m:zeroGradParameters()
    copy:zeroGradParameters()
    m:backward(x, g)
    copy:backward(x, g)
    local p, gp = m:getParameters()
    local cp, cgp = copy:getParameters()
    helper.assert_close(cgp, gp, 0, 'gradients of the copy')
    cp:zero_()
    assert.is_true(fused.sum(fused.abs(p)) > 0)
    local tied = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
    local lstm, tied_lstm = m.modules[1].module, tied.modules[1].module
    tied_lstm.weight_ih_l0:fill_(0.5)
    assert.equals(0.5, lstm.weight_ih_l0[1][1])
    tied_lstm.bias_hh_l0:fill_(0.25)
    assert.equals(0.25, lstm.bias_hh_l0[1])
    local both = nn.Sequential():add(m):add(tied)
    local _, flat_grads = both:getParameters()
    assert.equals(p:numel(), flat_grads:numel()) -- counted once
  end)
end)

describe("a Torch7 model moved to fused's LSTM (docs/torch7.md)", function()
  it("trains the docs' block with getParameters and optim.adam: the loss falls", function()
    local text = helper.read('docs/torch7.md')
    local code = text:match('%(`spec/th_nn_spec.lua` runs this block%):%s*```lua\n(.-)```')
    assert(code, "docs/torch7.md: no lua block after '(`spec/th_nn_spec.lua` runs this block):'")
    fused.manual_seed(11)
    local env = setmetatable({ nn = nn, fused = fused, vocab = 6, rnn_size = 8, dropout = 0 }, { __index = _G })
    local run = assert(loadstring(code .. '\nreturn model, criterion, params, grads', '=docs/torch7.md'))
    local model, criterion, params, grads = setfenv(run, env)()
    local x = fused.tensor({ { 1, 2, 3 }, { 2, 3, 4 }, { 3, 4, 5 }, { 4, 5, 6 }, { 5, 6, 1 } })
    local y = fused.tensor({ 2, 3, 4, 3, 4, 5, 4, 5, 6, 5, 6, 1, 6, 1, 2 })
    local function feval()
      grads:zero_()
      local loss = criterion:forward(model:forward(x), y)
      model:backward(x, criterion:backward(model.output, y))
      return loss, grads
    end
    local optim = require 'fused.th.optim'
    local state, first, last = { learningRate = 0.02 }, nil, nil
    for _ = 1, 30 do
      local _, fs = optim.adam(feval, params, state)
      first, last = first or fs[1], fs[1]
    end
    assert.equals(15, model.output:size(1))
    assert.equals('fused.nn.LSTM', tostring(model.modules[2].module):match('^fused%.nn%.LSTM'))
    assert.is_true(last < first * 0.5, string.format('loss %g -> %g', first, last))
  end)
end)

describe('th nn on the cuda device (a GPU, or the emulator in make test)', function()
  -- x (a tensor or a table of them) on the device.
  local function to_cuda(x)
    if fused.is_tensor(x) then return x:to('cuda') end
    local t = {}
    for i, v in ipairs(x) do t[i] = to_cuda(v) end
    return t
  end

  local cases = {
    { 'Linear, Tanh, LogSoftMax and ClassNLLCriterion with weights', function()
      return nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.LogSoftMax()), r(2, 3),
             nn.ClassNLLCriterion(fused.rand({ 4 }, { dtype = 'float64' })), fused.tensor({ 1, 3 }) end },
    { 'LookupTable', function() return nn.LookupTable(5, 3), fused.tensor({ { 1, 2 }, { 5, 1 } }):long() end },
    { 'SpatialConvolution and SpatialMaxPooling', function()
      return nn.Sequential():add(nn.SpatialConvolution(1, 2, 3, 3)):add(nn.SpatialMaxPooling(2, 2)), r(2, 1, 6, 6) end },
    { 'Max', function() return nn.Max(2), r(3, 4) end },
    { 'CMul and BCECriterion', function()
      return nn.Sequential():add(nn.CMul(4)):add(nn.Sigmoid()), r(3, 4), nn.BCECriterion(),
             fused.rand({ 3, 4 }, { dtype = 'float64' }):gt(0.5):double() end },
  }
  for _, case in ipairs(cases) do
    helper.gpu_it(case[1] .. ": :cuda() gives the CPU's outputs and gradients", function()
      local m, input, crit, target = case[2]()
      local c = m:clone():type('torch.CudaDoubleTensor')
      local _, cg = c:parameters()
      assert.equals('cuda', (cg and cg[1] or c.output).device)
      local y, cy = m:forward(input), c:forward(to_cuda(input))
      assert.equals('cuda', cy.device)
      helper.assert_close(cy:cpu(), y, 1e-12, 'output')
      local g = r(unpack(y:shape()))
      local gi, cgi = m:backward(input, g), c:backward(to_cuda(input), g:cuda())
      if input.dtype == 'float64' then helper.assert_close(cgi:cpu(), gi, 1e-12, 'gradInput') end
      local _, grads = m:parameters()
      for i, gr in ipairs(grads or {}) do helper.assert_close(cg[i]:cpu(), gr, 1e-12, 'gradient ' .. i) end
      if crit then
        local cc = crit:clone():type('torch.CudaDoubleTensor')
        assert.is_true(math.abs(crit:forward(y, target) - cc:forward(cy, to_cuda(target))) < 1e-12)
        helper.assert_close(cc:backward(cy, to_cuda(target)):cpu(), crit:backward(y, target), 1e-12, 'criterion')
      end
    end)
  end
end)

describe("torch.class objects' metamethods (lua/fused/th/class.lua)", function()
  it("are the class's __tostring__, __call__, __sub__, __unm__ ... found through its parents", function()
    local pkg = {}
    local Base = class.class('thnnspec.Base', pkg)
    function Base:__init(v) self.v = v end
    function Base:__tostring__() return 'Base(' .. self.v .. ')' end
    function Base:__call__(x) return self.v + x end
    function Base:__sub__(other) return self.v - other.v end
    function Base:__unm__() return -self.v end
    class.class('thnnspec.Child', 'thnnspec.Base', pkg)
    local a, b = pkg.Child(5), pkg.Base(2)
    assert.equals('Base(5)', tostring(a))
    assert.equals(8, a(3))
    assert.equals(3, a - b)
    assert.equals(-5, -a)
    assert.equals('thnnspec.Child', class.typename(a.new(1)))
    local Plain = class.class('thnnspec.Plain', pkg)
    assert.matches('^thnnspec.Plain: 0x%x+$', tostring(Plain.new()))
    assert.has_error(function() return pkg.Plain() + 1 end,
      'attempt to add a thnnspec.Plain value (its class defines no __add__)')
  end)
end)

describe('fused th script.lua', function()
  it("finds Torch7's nn, nngraph and optim by require, with their globals, and trains with them", function()
    local script = os.tmpname()
    local f = assert(io.open(script, 'w'))
    f:write([[
require 'nn'
require 'nngraph'
require 'optim'
local fused = require 'fused'
local x = nn.Identity()()
local g = nn.gModule({ x }, { nn.Linear(4, 1)(nn.Tanh()(nn.Linear(3, 4)(x))) })
local params, grads = g:getParameters()
local inputs = fused.randn({ 16, 3 }, { dtype = 'float64' })
local targets = fused.randn({ 16, 1 }, { dtype = 'float64' })
local criterion = nn.MSECriterion()
local function feval()
  grads:zero_()
  local loss = criterion:forward(g:forward(inputs), targets)
  g:backward(inputs, criterion:backward(g.output, targets))
  return loss, grads
end
local first, last, state = nil, nil, { learningRate = 0.05 }
for i = 1, 50 do
  local _, fs = optim.adam(feval, params, state)
  first, last = first or fs[1], fs[1]
end
print(torch.typename(g), rawget(_G, 'graph') ~= nil, last < first)
]])
    f:close()
    local p = io.popen('FUSED_NO_READLINE=1 bin/fused th ' .. script .. ' 2>&1')
    local out = p:read('*a')
    p:close()
    os.remove(script)
    assert.equals('nn.gModule\ttrue\ttrue\n', out)
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
