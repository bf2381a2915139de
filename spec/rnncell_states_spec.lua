-- nn.RNNCell over a defined cell of a list of states and per-unit parameters (issue 34):
-- forward(x, s1, s2, ...) returns the new states in the cell's order, backward(grad_s1, ...)
-- returns d_x and the gradients at the old states; the per-unit parameters are the module's,
-- named as nn.RNN names them without the layer suffix (as PyTorch's LSTMCell drops it). nn.Recurrent
-- unrolling it gives nn.RNN's results over the sequence (float64, 1e-10): xLSTM's sLSTM (4
-- states) and the peephole LSTM (3 parameters), nonzero initial states, ragged; gradcheck of one
-- step; wrong calls say what.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'
local F = fused.cell
local close, err = helper.assert_close, helper.assert_error

local cache = os.tmpname()
local o = { dtype = 'float64' }
local function cell(file)
  if file == 'indrnn' then -- one state and a per-unit parameter (IndRNN: h' = relu(Wx + u h + b))
    return F.define { name = 'indrnn', gates = 1, state = { 'h' }, params = { 'u' },
      cache_dir = cache .. '.d',
      step = function(gx, gh, s, p) return { h = F.relu(gx[1] + p.u * s.h) } end }
  end
  return F.define(ref.example(file, cache .. '.d'))
end

-- Initial states for the cell: random, a normaliser n positive (a zero one selects the sLSTM's
-- first-step stabiliser).
local function initial(spec, B, H)
  local s = {}
  for k, name in ipairs(spec.states) do
    s[k] = fused.randn({ B, H }, o)
    if name == 'n' then s[k]:abs_():add_(0.5) end
  end
  return s
end

describe('nn.RNNCell over a cell of several states and per-unit parameters', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  for _, file in ipairs({ 'slstm', 'peephole_lstm', 'indrnn' }) do
    it(file .. ': nn.Recurrent over nn.RNNCell gives nn.RNN\'s results within 1e-10, ragged', function()
      local spec = cell(file)
      fused.manual_seed(21)
      local T, B, I, H, K = 5, 3, 4, 6, #spec.states
      local rnn = fused.nn.RNN(I, H, { cell = spec, dtype = 'float64' })
      local one = fused.nn.RNNCell(I, H, { cell = spec, dtype = 'float64' })
      for name, p in one:named_parameters() do
        p:copy(rnn[name .. '_l0'])
      end
      local unrolled = fused.nn.Recurrent(one)
      local xs, s0 = fused.randn({ T, B, I }, o), initial(spec, B, H)
      local lengths = { 5, 2, 4 }
      local d_hs = fused.randn({ T, B, H }, o)
      local d_n = {}
      for k = 1, K do d_n[k] = fused.randn({ B, H }, o) end
      local function run(m, states)
        local out = { m:forward(xs, unpack(states)) }
        m:zeroGradParameters()
        local d = { m:backward(d_hs, unpack(d_n)) }
        local got = { hs = out[1]:clone(), d_xs = d[1]:clone() }
        for k, name in ipairs(spec.states) do
          got[name .. '_n'] = out[k + 1]:contiguous():view(B, H):clone()
          got['d_' .. name .. '0'] = d[k + 1]:contiguous():view(B, H):clone()
        end
        for name, _, g in m:named_parameters() do
          got['d_' .. name:gsub('^cell%.', ''):gsub('_l0$', '')] = g:clone()
        end
        return got
      end
      local states, layered = {}, {}
      for k = 1, K do states[k], layered[k] = s0[k], s0[k]:view(1, B, H) end
      states[K + 1], layered[K + 1] = { lengths = lengths }, { lengths = lengths }
      local want = run(rnn, layered)
      local got = run(unrolled, states)
      local n = 0
      for name, t in pairs(want) do
        close(got[name], t, 1e-10, file .. ' ' .. name)
        n = n + 1
      end
      assert.are.equal(2 + 2 * K + 4 + #spec.params, n)
      assert.is_true(want.d_weight_ih:abs():max() > 1e-3, 'the comparison checks something')
    end)
  end

  it('the per-unit parameters: named without the layer suffix, after the biases, with their init', function()
    local def = ref.example('peephole_lstm', cache .. '.d')
    def.init = { w_ci = 'zeros', w_cf = 'ones' }
    local m = fused.nn.RNNCell(3, 4, { cell = F.define(def) })
    local names = {}
    for name in m:named_parameters() do names[#names + 1] = name end
    assert.are.same({ 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh', 'w_ci', 'w_cf', 'w_co' }, names)
    assert.are.equal(0, m.w_ci:abs():max())
    assert.are.equal(1, m.w_cf:min())
    assert.is_true(m.w_co:abs():max() > 0 and m.w_co:abs():max() <= 0.5)
    assert.is_not_nil(m:state_dict().w_co)
  end)

  for _, file in ipairs({ 'slstm', 'peephole_lstm', 'indrnn' }) do
    it(file .. ': gradcheck of one step over x, the states and every parameter', function()
      local spec = cell(file)
      fused.manual_seed(22)
      local m = fused.nn.RNNCell(3, 4, { cell = spec, dtype = 'float64' })
      local inputs = { fused.randn({ 2, 3 }, o), unpack(initial(spec, 2, 4)) }
      local ok, worst = ref.gradcheck(m, inputs)
      assert.is_true(ok, worst and worst.message)
    end)
  end

  it('wrong calls say what: a missing state, an extra argument, a wrong gradient', function()
    local spec = cell('slstm')
    local m = fused.nn.RNNCell(3, 4, { cell = spec, dtype = 'float64' })
    local x, s = fused.randn({ 2, 3 }, o), initial(spec, 2, 4)
    err(function() m:forward(x, s[1], s[2], s[3]) end, "RNNCell:forward: argument 'm'")
    err(function() m:forward(x, s[1], s[2], s[3], s[4], s[1]) end, 'RNNCell:forward')
    m:forward(x, unpack(s))
    err(function() m:backward(s[1], s[2], s[3], fused.randn({ 3, 4 }, o)) end,
        "RNNCell:backward: argument 'grad_m'")
  end)

  it('a cell that reads x needs input_size = hidden_size, said at construction', function()
    err(function() fused.nn.RNNCell(3, 4, { cell = cell('highway_gru') }) end,
        "RNNCell: cell 'highway_gru' reads x", 'input_size=3, hidden_size=4')
  end)
end)
