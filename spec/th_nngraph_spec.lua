-- Torch7's nngraph inside `fused th` (lua/fused/th/nngraph.lua): graphs built by calling
-- modules on nodes run forward and backward as the same model built with Sequential, with
-- numeric gradients in float64; char-rnn's LSTM graph (its model/LSTM.lua, the one-hot input
-- aside) gives fused.nn.LSTMCell's steps.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = require 'fused.th.nn'
local nngraph = require 'fused.th.nngraph'
local J = require 'spec.th_jacobian'

local function r(...) return fused.randn({ ... }, { dtype = 'float64' }) end

-- char-rnn's LSTM.lua, with nn.Linear in place of its OneHot on the first layer's input.
local function char_rnn_lstm(input_size, rnn_size, n, dropout)
  dropout = dropout or 0
  local inputs = {}
  table.insert(inputs, nn.Identity()()) -- x
  for _ = 1, n do
    table.insert(inputs, nn.Identity()()) -- prev_c[L]
    table.insert(inputs, nn.Identity()()) -- prev_h[L]
  end
  local x, input_size_L
  local outputs = {}
  for L = 1, n do
    local prev_h = inputs[L * 2 + 1]
    local prev_c = inputs[L * 2]
    if L == 1 then
      x = inputs[1]
      input_size_L = input_size
    else
      x = outputs[(L - 1) * 2]
      if dropout > 0 then x = nn.Dropout(dropout)(x) end
      input_size_L = rnn_size
    end
    local i2h = nn.Linear(input_size_L, 4 * rnn_size)(x):annotate { name = 'i2h_' .. L }
    local h2h = nn.Linear(rnn_size, 4 * rnn_size)(prev_h):annotate { name = 'h2h_' .. L }
    local all_input_sums = nn.CAddTable()({ i2h, h2h })
    local reshaped = nn.Reshape(4, rnn_size)(all_input_sums)
    local n1, n2, n3, n4 = nn.SplitTable(2)(reshaped):split(4)
    local in_gate = nn.Sigmoid()(n1)
    local forget_gate = nn.Sigmoid()(n2)
    local out_gate = nn.Sigmoid()(n3)
    local in_transform = nn.Tanh()(n4)
    local next_c = nn.CAddTable()({
      nn.CMulTable()({ forget_gate, prev_c }),
      nn.CMulTable()({ in_gate, in_transform }),
    })
    local next_h = nn.CMulTable()({ out_gate, nn.Tanh()(next_c) })
    table.insert(outputs, next_c)
    table.insert(outputs, next_h)
  end
  local top_h = outputs[#outputs]
  local proj = nn.Linear(rnn_size, input_size)(top_h):annotate { name = 'decoder' }
  local logsoft = nn.LogSoftMax()(proj)
  table.insert(outputs, logsoft)
  return nn.gModule(inputs, outputs)
end

-- The rows of a Torch7 LSTM's 4H gate block (i, f, o, g) in PyTorch's order (i, f, g, o).
local function pytorch_order(t, H)
  return fused.cat({ t:narrow(1, 1, 2 * H), t:narrow(1, 3 * H + 1, H), t:narrow(1, 2 * H + 1, H) }, 1)
end

describe('nngraph', function()
  it('runs a graph as the same model built with Sequential: outputs and gradients', function()
    local l1, l2 = nn.Linear(3, 4), nn.Linear(4, 2)
    local x = nn.Identity()()
    local y = nn.LogSoftMax()(l2(nn.Tanh()(l1(x))))
    local g = nn.gModule({ x }, { y })
    local s = nn.Sequential():add(l1:clone()):add(nn.Tanh()):add(l2:clone()):add(nn.LogSoftMax())
    local input, grad = r(5, 3), r(5, 2)
    helper.assert_close(g:forward(input), s:forward(input), 1e-12, 'output')
    g:zeroGradParameters()
    s:zeroGradParameters()
    helper.assert_close(g:backward(input, grad), s:backward(input, grad), 1e-12, 'gradInput')
    local _, gg = g:getParameters()
    local _, sg = s:getParameters()
    helper.assert_close(gg, sg, 1e-12, 'flat gradients')
  end)

  it("builds with nngraph's - operator: -module, node - module", function()
    local l1, l2 = nn.Linear(2, 3), nn.Linear(3, 1)
    local h = -l1
    local out = h - nn.Tanh() - l2
    local g = nn.gModule({ h }, { out })
    local input = r(4, 2)
    local s = nn.Sequential():add(l1):add(nn.Tanh()):add(l2)
    helper.assert_close(g:forward(input), s:forward(input), 0, 'output')
  end)

  it("gives char-rnn's LSTM graph numeric gradients, with a node feeding several and split(4)", function()
    local g = char_rnn_lstm(3, 4, 2)
    local input = { r(2, 3), r(2, 4), r(2, 4), r(2, 4), r(2, 4) }
    local output = g:forward(input)
    assert.equals(5, #output)
    local input_error, param_error = J.errors(g, input)
    assert.is_true(input_error < 1e-7, 'input gradient off by ' .. input_error)
    assert.is_true(param_error < 1e-7, 'parameter gradient off by ' .. param_error)
  end)

  it("gives fused.nn.LSTMCell's step from char-rnn's LSTM graph (the weights' gate order mapped)", function()
    local H = 4
    local g = char_rnn_lstm(3, H, 1)
    local cell = fused.nn.LSTMCell(3, H, { dtype = 'float64' })
    local named = {}
    for _, node in ipairs(g.forwardnodes) do
      if node.data.annotations.name then named[node.data.annotations.name] = node.data.module end
    end
    local i2h, h2h = named.i2h_1, named.h2h_1
    cell.weight_ih:copy_(pytorch_order(i2h.weight, H))
    cell.weight_hh:copy_(pytorch_order(h2h.weight, H))
    cell.bias_ih:copy_(pytorch_order(i2h.bias, H))
    cell.bias_hh:copy_(pytorch_order(h2h.bias, H))
    local x, c, h = r(2, 3), r(2, H), r(2, H)
    local out = g:forward({ x, c, h })
    local new_h, new_c = cell:forward(x, h, c)
    helper.assert_close(out[1], new_c, 1e-12, 'next_c')
    helper.assert_close(out[2], new_h, 1e-12, 'next_h')
  end)

  it('clones a graph: the clone computes the same, its parameters its own', function()
    local g = char_rnn_lstm(3, 4, 1)
    local c = g:clone()
    local input = { r(2, 3), r(2, 4), r(2, 4) }
    local a = g:forward(input)
    local b = c:forward(input)
    for i = 1, 3 do helper.assert_close(a[i], b[i], 0, 'output ' .. i) end
    local p = c:getParameters()
    p:zero_()
    assert.is_true(fused.sum(fused.abs((g:getParameters()))) > 0)
  end)

  it('takes a table of inputs from one node and accepts annotateNodes', function()
    nngraph.annotateNodes()
    local a, b = nn.Identity()(), nn.Identity()()
    local join = nn.JoinTable(2)({ a, b })
    local g = nn.gModule({ a, b }, { nn.Linear(5, 1)(join) })
    local input = { r(2, 3), r(2, 2) }
    local input_error = J.errors(g, input)
    assert.is_true(input_error < 1e-7)
  end)

  it('refuses what nngraph refused, saying where', function()
    local x = nn.Identity()()
    local a, b = nn.SplitTable(2)(x):split(2)
    local ok, err = pcall(nn.gModule, { x }, { nn.Tanh()(a) })
    assert.is_false(ok)
    assert.matches('nn.gModule: 1 of split%(2%) outputs from the node declared at %[.*th_nngraph_spec.lua%]:%d+ are unused', err)
    assert.is_not_nil(b)
    local y, unused = nn.Identity()(), nn.Identity()()
    assert.has_error(function() nn.gModule({ y, unused }, { nn.Tanh()(y) }) end,
      'nn.gModule: inputs[2] does not connect to any output')
    assert.has_error(function() nn.gModule({ nn.Identity()() }, { nn.Tanh() }) end,
      'nn.gModule: outputs[1] expected a node (call a module on nodes: nn.Identity()()), got nn.Tanh')
    local z = nn.Identity()()
    local used = nn.Tanh()(z)
    nn.Sigmoid()(z) -- feeds nothing that reaches the output
    ok, err = pcall(nn.gModule, { z }, { used })
    assert.matches('nn.gModule: the node declared at %[.*th_nngraph_spec.lua%]:%d+ does not connect to the outputs', err)
    local p, q = nn.Identity()(), nn.Identity()()
    local two = nn.gModule({ p, q }, { nn.CAddTable()({ p, q }) })
    assert.has_error(function() two:forward(r(2)) end, 'nn.gModule: expected a table of 2 inputs, got a tensor')
    assert.has_error(function() nn.Tanh()(x, y) end, 'nngraph: use {input1, input2} to pass several inputs to a module')
    assert.has_error(function() nn.Tanh()({}) end,
      'nngraph: cannot pass an empty table of inputs (leave the parentheses empty for none)')
  end)

  -- nngraph's README.md examples, as written there (torch.rand: a float64 uniform tensor).
  local function rand(...) return fused.rand({ ... }, { dtype = 'float64' }) end

  it("runs its README's examples: an input node with a module, - chains, split, annotations, graph.dot", function()
    local h1 = nn.Linear(20, 10)()
    local h2 = nn.Linear(10, 1)(nn.Tanh()(nn.Linear(10, 10)(nn.Tanh()(h1))))
    local mlp = nn.gModule({ h1 }, { h2 })
    local x, dx = rand(20), rand(1)
    mlp:updateOutput(x)
    mlp:updateGradInput(x, dx)
    mlp:accGradParameters(x, dx)
    assert.is_true(J.errors(mlp, x, 'inputs only') < 1e-7)

    h1 = -nn.Linear(20, 20)
    h2 = -nn.Linear(10, 10)
    local hh1 = h1 - nn.Tanh() - nn.Linear(20, 1)
    local hh2 = h2 - nn.Tanh() - nn.Linear(10, 1)
    local madd = { hh1, hh2 } - nn.CAddTable()
    local oA = madd - nn.Sigmoid()
    local oB = madd - nn.Tanh()
    local gmod = nn.gModule({ h1, h2 }, { oA, oB })
    local input_error, param_error = J.errors(gmod, { rand(20), rand(10) })
    assert.is_true(input_error < 1e-7 and param_error < 1e-7)

    local m = nn.Sequential()
    m:add(nn.SplitTable(1))
    m:add(nn.ParallelTable():add(nn.Linear(10, 20)):add(nn.Linear(10, 30)))
    local input = nn.Identity()()
    local input1, input2 = m(input):split(2)
    local m3 = nn.JoinTable(1)({ input1, input2 })
    local g = nn.gModule({ input }, { m3 })
    local indata, gdata = rand(2, 10), rand(50)
    assert.same({ 50 }, g:forward(indata):shape())
    assert.same({ 2, 10 }, g:backward(indata, gdata):shape())
    assert.is_true(J.errors(g, indata) < 1e-7)

    input = -nn.Identity()
    local L1 = input
      - nn.Linear(10, 20)
      - nn.Tanh()
    local L2 = { input, L1 }
      - nn.JoinTable(1)
      - nn.Linear(30, 60)
      - nn.Tanh()
    local L3 = { L1, L2 }
      - nn.JoinTable(1)
      - nn.Linear(80, 160)
      - nn.Tanh()
    g = nn.gModule({ input }, { L3 })
    assert.is_true(J.errors(g, rand(10), 'inputs only') < 1e-7)

    input = nn.Identity()()
    L1 = nn.Tanh()(nn.Linear(10, 20)(input)):annotate {
      name = 'L1', description = 'Level 1 Node', graphAttributes = { color = 'red' } }
    L2 = nn.Tanh()(nn.Linear(30, 60)(nn.JoinTable(1)({ input, L1 }))):annotate {
      name = 'L2', description = 'Level 2 Node', graphAttributes = { color = 'blue', fontcolor = 'green' } }
    L3 = nn.Tanh()(nn.Linear(80, 160)(nn.JoinTable(1)({ L1, L2 }))):annotate {
      name = 'L3', description = 'Level 3 Node', graphAttributes = { color = 'green', style = 'filled', fillcolor = 'yellow' } }
    g = nn.gModule({ input }, { L3 })
    g:forward(rand(10))
    g:backward(rand(10), rand(160))
    local base = os.tmpname()
    graph.dot(g.fg, 'Forward Graph', base)
    local text = helper.read(base .. '.dot')
    os.remove(base .. '.dot')
    os.remove(base)
    assert.matches('digraph "Forward Graph" {', text, 1, true)
    local l3 = text:match('  n(%d+) %[label="L3 %(%d+%)\\nnn.Tanh\\nLevel 3 Node", color="green", fillcolor="yellow", style="filled"%];')
    assert.is_not_nil(l3)
    local _, edges = text:gsub('\n  n%d+ %-> n%d+;', '')
    assert.equals(#g.fg.edges, edges)
    assert.matches('n' .. l3 .. ' %-> n%d+;', text) -- L3 feeds the output node
    assert.matches('digraph "Backward Graph" {', graph.dot(g.bg, 'Backward Graph'), 1, true)
  end)
end)
