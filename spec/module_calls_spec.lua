-- The calls of a module (nn/calls.lua): Torch7's backward(input, gradOutput[, scale]) beside
-- fused's backward(gradOutput), decided by the arguments' count and kinds; a module called
-- again before its backward keeping each call's state; evaluation mode; the bound on waiting
-- calls.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn
local close, err = helper.assert_close, helper.assert_error

local F64 = { dtype = 'float64' }

local function t64(v) return fused.tensor(v, F64) end

describe("Torch7's backward(input, gradOutput[, scale])", function()
  it('on nn.Tanh takes gradOutput, not the input, as the gradient', function()
    local x, g = t64({ 0.5, -0.58 }), t64({ 10, 11.56 })
    local m = nn.Tanh()
    m:forward(x)
    local want = {}
    for i, v in ipairs(x:totable()) do want[i] = g:totable()[i] * (1 - math.tanh(v) ^ 2) end
    close(m:backward(x, g), t64(want), 1e-15, 'd_x')
    close(t64(want), t64({ 7.864, 8.399 }), 1e-3, "the issue's numbers")
  end)

  it('on Sequential equals fused form, and scale multiplies the parameter gradients only', function()
    fused.manual_seed(1)
    local m = nn.Sequential(nn.Linear(3, 4, F64), nn.Tanh(), nn.Linear(4, 2, F64))
    local x, d_y = fused.randn({ 5, 3 }, F64), fused.randn({ 5, 2 }, F64)
    m:forward(x)
    local want = m:backward(d_y):clone()
    local _, grads = m:parameters()
    local once = {}
    for i, g in ipairs(grads) do once[i] = g:clone() end
    m:zero_grad()
    m:forward(x)
    close(m:backward(x, d_y), want, 0, 'd_x, Torch7 form')
    for i, g in ipairs(grads) do close(g, once[i], 0, 'gradient ' .. i) end
    m:zero_grad()
    m:forward(x)
    close(m:backward(x, d_y, 0.5), want, 0, 'd_x with scale')
    for i, g in ipairs(grads) do close(g, once[i] * 0.5, 1e-15, 'scaled gradient ' .. i) end
  end)

  it('updateGradInput leaves the parameters; accGradParameters adds scale times theirs', function()
    fused.manual_seed(2)
    local m = nn.Linear(3, 2, F64)
    local x, d_y = fused.randn({ 4, 3 }, F64), fused.randn({ 4, 2 }, F64)
    m:forward(x)
    local want = m:backward(d_y):clone()
    local gw = m.grad.weight:clone()
    m:zero_grad()
    m:forward(x)
    close(m:updateGradInput(x, d_y), want, 0, 'updateGradInput')
    assert.are.equal(0, m.grad.weight:abs():sum())
    m:accGradParameters(x, d_y, 2)
    close(m.grad.weight, gw * 2, 1e-15, 'accGradParameters with scale 2')
    err(function() m:accGradParameters(x, d_y) end, 'Linear:accGradParameters', 'no forward to go back through')
    m:forward(x)
    m:accGradParameters(x, d_y) -- without updateGradInput: goes back itself
    close(m.grad.weight, gw * 3, 1e-15, 'accGradParameters alone')
  end)

  it('on a module with several results takes the gradients as a list', function()
    fused.manual_seed(3)
    local cell = nn.LSTMCell(3, 4, F64)
    local x, h, c = fused.randn({ 2, 3 }, F64), fused.randn({ 2, 4 }, F64), fused.randn({ 2, 4 }, F64)
    local gh, gc = fused.randn({ 2, 4 }, F64), fused.randn({ 2, 4 }, F64)
    cell:forward(x, h, c)
    local want = { cell:backward(gh, gc) }
    for i = 1, 3 do want[i] = want[i]:clone() end
    cell:forward(x, h, c)
    local got = { cell:backward(x, { gh, gc }) }
    for i = 1, 3 do close(got[i], want[i], 0, 'gradient ' .. i) end
    cell:forward(x, h, c)
    err(function() cell:backward(x, gh) end, "LSTMCell:backward: the first gradient is the call's input",
        'LSTMCell:backward(input, {<those gradients>}[, scale])')
  end)

  it('is told apart from fused form by count and kinds; anything else is an error naming both', function()
    local m, x = nn.Tanh(), t64({ 1, 2 })
    m:forward(x)
    err(function() m:backward(x, x, 'half') end, 'Tanh:backward: expected Tanh:backward(gradOutput) or, as Torch7, '
        .. 'Tanh:backward(input, gradOutput[, scale]), got 3 arguments (the third is string)')
    err(function() m:backward(x, x, 1, 2) end, 'got 4 arguments (more than 3)')
    err(function() m:backward(t64({ 1, 2 }), x) end, "Tanh:backward: argument 'input' is not the input of a "
        .. 'forward waiting for its backward (1 waiting')
    err(function() m:updateGradInput(x) end, "Tanh:updateGradInput: argument 'gradOutput' expected a tensor, got nil (call Tanh:updateGradInput(input, gradOutput))")
    err(function() m:backward(x, nil) end, "Tanh:backward: argument 'gradOutput' expected a tensor, got nil")
    err(function() nn.Tanh():backward(x, x) end, 'Tanh:backward: no forward to go back through (call forward first)')
  end)
end)

describe('a module called again before its backward', function()
  it('keeps each Dropout call apart: outputs untouched, gradients exact by finite differences', function()
    local drop, lin = nn.Dropout(0.5), nn.Linear(4, 4, F64)
    fused.manual_seed(4)
    local x1 = fused.randn({ 3, 4 }, F64)
    local y1 = drop:forward(x1)
    local kept = y1:clone()
    drop:forward(fused.randn({ 3, 4 }, F64))
    close(y1, kept, 0, "the first call's output after a second call")
    drop:backward(fused.ones({ 3, 4 }, F64))
    drop:backward(fused.ones({ 3, 4 }, F64))

    -- x -> drop -> Linear -> drop, as PyTorch's word language model applies one Dropout twice.
    local f = {
      forward = function(x, w)
        lin.weight:copy_(w)
        fused.manual_seed(5)
        return drop:forward(lin:forward(drop:forward(x))):clone()
      end,
      backward = function(_, d_y)
        lin:zero_grad()
        local d_x = drop:backward(lin:backward(drop:backward(d_y)))
        return d_x:clone(), lin.grad.weight:clone()
      end,
    }
    local ok, worst = fused.gradcheck(f, { fused.randn({ 3, 4 }, F64), fused.randn({ 4, 4 }, F64) })
    assert.is_true(ok, worst and worst.message)
  end)

  it("goes back through the call Torch7's form names, in any order", function()
    fused.manual_seed(6)
    local m = nn.Linear(3, 2, F64)
    local a, b, d = fused.randn({ 4, 3 }, F64), fused.randn({ 4, 3 }, F64), fused.randn({ 4, 2 }, F64)
    m:forward(a)
    local want_a = m:backward(d):clone()
    local gw_a = m.grad.weight:clone()
    m:zero_grad()
    m:forward(b)
    m:backward(d)
    local gw_b = m.grad.weight:clone()
    m:zero_grad()
    local ya = m:forward(a)
    local ya_kept = ya:clone()
    m:forward(b)
    close(ya, ya_kept, 0, "the first call's output")
    close(m:backward(a, d), want_a, 0, 'the first call first')
    m:backward(b, d)
    close(m.grad.weight, gw_a + gw_b, 1e-15, 'both gradients')
  end)

  it('runs a cell step by step as nn.Recurrent does with its clones', function()
    fused.manual_seed(7)
    local T, B, I, H = 4, 2, 3, 5
    local cell = nn.LSTMCell(I, H, F64)
    local rec = nn.Recurrent(cell:shared_clone())
    local xs, d_hs = fused.randn({ T, B, I }, F64), fused.randn({ T, B, H }, F64)
    local hs = rec:forward(xs)
    local d_xs = rec:backward(d_hs):clone()
    local want = cell.grad.weight_ih:clone()
    cell:zero_grad()
    local h, c = fused.zeros({ B, H }, F64), fused.zeros({ B, H }, F64)
    local outs = {}
    for t = 1, T do
      h, c = cell:forward(xs:select(1, t), h, c)
      outs[t] = h
    end
    for t = 1, T do close(outs[t], hs:select(1, t), 1e-15, 'h at step ' .. t) end
    local d_h, d_c = fused.zeros({ B, H }, F64), fused.zeros({ B, H }, F64)
    for t = T, 1, -1 do
      local d_x
      d_x, d_h, d_c = cell:backward(d_hs:select(1, t) + d_h, d_c)
      close(d_x, d_xs:select(1, t), 1e-14, 'd_x at step ' .. t)
    end
    close(cell.grad.weight_ih, want, 1e-14, 'grad.weight_ih')
  end)

  it('keeps at most max_pending calls: the oldest is forgotten, its output kept, and backward says so', function()
    local m, x = nn.Tanh(), t64({ 1, 2 })
    m.max_pending = 2
    local ys = {}
    for i = 1, 3 do ys[i] = m:forward(x * i) end
    close(ys[1], (x * 1):tanh(), 0, 'the forgotten call\'s output')
    m:backward(t64({ 1, 1 }))
    m:backward(t64({ 1, 1 }))
    err(function() m:backward(t64({ 1, 1 })) end, 'Tanh:backward: no forward to go back through',
        '1 earlier calls were forgotten', 'max_pending = 2')
  end)

  it('in a module of your own, its forward redefined as in the REPL', function()
    local Mine = nn.Module:extend('Mine')
    function Mine:__init() self.lin = nn.Linear(2, 2, F64) end
    function Mine:forward(x) return self.lin:forward(x) * 2 end
    function Mine:backward(d_y) return self.lin:backward(d_y * 2) end
    function Mine:forward(x) return self.lin:forward(x) end -- a fix, typed again
    function Mine:backward(d_y) return self.lin:backward(d_y) end
    local m = Mine()
    local a, b = fused.ones({ 1, 2 }, F64), fused.zeros({ 1, 2 }, F64)
    local y1 = m:forward(a)
    local kept = y1:clone()
    m:forward(b)
    close(y1, kept, 0, "the first call's output")
    m:backward(fused.ones({ 1, 2 }, F64))
    close(m:backward(a, fused.ones({ 1, 2 }, F64)), fused.ones({ 1, 2 }, F64):matmul(m.lin.weight), 1e-15, 'd_x')
    close(m.lin.grad.weight, fused.ones({ 2, 2 }, F64), 0, 'grad.weight: a + b in each row')
  end)

  it("in a module of Torch7's protocol: each call's output, gradInput and input apart", function()
    local Scale = nn.Module:extend('Scale')
    function Scale:__init()
      self.weight, self.gradWeight = t64({ 2, 3 }), t64({ 0, 0 })
    end
    function Scale:updateOutput(input)
      self.output = input * self.weight
      return self.output
    end
    function Scale:updateGradInput(_, gradOutput)
      self.gradInput = gradOutput * self.weight
      return self.gradInput
    end
    function Scale:accGradParameters(input, gradOutput, scale)
      self.gradWeight:add_((gradOutput * input):sum(1):view(-1) * scale)
    end
    local m = Scale()
    local a, b, g = t64({ { 1, 1 } }), t64({ { 10, 100 } }), t64({ { 1, 1 } })
    local ya = m:forward(a)
    m:forward(b)
    close(ya, t64({ { 2, 3 } }), 0, "the first call's output")
    m:backward(a, g, 0.5) -- the first call first, by its input
    close(m.gradWeight, t64({ 0.5, 0.5 }), 0, 'gradWeight from a alone, scaled')
    m:backward(g)
    close(m.gradWeight, t64({ 10.5, 100.5 }), 0, 'then b')
  end)

  it('in evaluation mode: fresh results, and only the latest call waits', function()
    fused.manual_seed(8)
    local m = nn.Linear(3, 2, F64):eval()
    local a, b = fused.randn({ 4, 3 }, F64), fused.randn({ 4, 3 }, F64)
    local ya = m:forward(a)
    local kept = ya:clone()
    for _ = 1, 100 do m:forward(b) end
    close(ya, kept, 0, 'an earlier evaluation result')
    assert.are.equal(1, #m.pending)
    close(m:backward(fused.ones({ 4, 2 }, F64)), fused.matmul(fused.ones({ 4, 2 }, F64), m.weight), 1e-15, 'd_x')
    err(function() m:backward(fused.ones({ 4, 2 }, F64)) end, 'no forward to go back through')
  end)
end)

-- PyTorch's word language model, as the issue ported it: one Dropout applied twice, a 2-layer
-- LSTM with dropout, the decoder tied to the embedding.
describe("PyTorch's word language model", function()
  local V, E = 6, 4
  local LM = nn.Module:extend('WordLM')
  function LM:__init()
    self.encoder = nn.Embedding(V, E, F64)
    self.drop = nn.Dropout(0.3)
    self.rnn = nn.LSTM(E, E, { num_layers = 2, dropout = 0.2, dtype = 'float64' })
    self.decoder = nn.Linear(E, V, F64)
    self.decoder.weight = self.encoder.weight
  end
  function LM:forward(x)
    local hs = self.rnn:forward(self.drop:forward(self.encoder:forward(x)))
    return self.decoder:forward(self.drop:forward(hs))
  end
  function LM:backward(d)
    local d_emb = self.rnn:backward(self.drop:backward(self.decoder:backward(d)))
    self.encoder:backward(self.drop:backward(d_emb))
  end
  local tokens = fused.tensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } }, { dtype = 'int64' })

  it('goes back exactly (finite differences through the tied weight)', function()
    fused.manual_seed(1)
    local m = LM()
    local f = {
      forward = function(w)
        m.encoder.weight:copy_(w)
        fused.manual_seed(9)
        return m:forward(tokens):clone()
      end,
      backward = function(_, d)
        m:zero_grad()
        m:backward(d)
        return m.encoder.grad.weight:clone()
      end,
    }
    local ok, worst = fused.gradcheck(f, { fused.randn({ V, E }, F64) })
    assert.is_true(ok, worst and worst.message)
  end)

  it('trains with no new storage per step, clipping the parameters', function()
    fused.manual_seed(2)
    local m, ce = LM(), nn.CrossEntropyLoss()
    local params, grads = m:parameters()
    local opt = fused.optim.SGD(params, grads, { lr = 0.01 })
    local function step()
      m:zero_grad()
      local out = m:forward(tokens)
      ce:forward(out, tokens)
      m:backward(ce:backward(out, tokens))
      fused.optim.clip_grad_norm(m:parameters(), 0.25)
      opt:step()
    end
    for _ = 1, 3 do step() end
    collectgarbage()
    collectgarbage('stop')
    local before = fused.debug.allocations()
    for _ = 1, 5 do step() end
    local made = fused.debug.allocations() - before
    collectgarbage('restart')
    assert.are.equal(0, made)
  end)
end)
