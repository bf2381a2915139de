-- nn.RNNCell: one step of a cell of your own (here fused.cell.define's JANET and CIFG LSTM) as
-- a cell module, which nn.Recurrent unrolls to nn.RNN's results over the same parameters.
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell

local o = { dtype = 'float64' }

local function close(a, b, what)
  local d = a:sub(b):abs():max()
  assert(d <= 1e-12, string.format('%s: largest difference %.3e', what, d))
end

describe('nn.RNNCell', function()
  for _, name in ipairs({ 'janet', 'cifg_lstm' }) do
    it('under nn.Recurrent gives nn.RNN’s results for the defined ' .. name .. ' cell', function()
      local spec = F.define(dofile('examples/cells/' .. name .. '.lua')(F))
      local T, B, I, H = 4, 3, 2, 5
      fused.manual_seed(1)
      local cell = fused.nn.RNNCell(I, H, { cell = spec, dtype = 'float64' })
      assert.are.equal(spec.has_c, cell.has_c)
      local rec = fused.nn.Recurrent(cell)
      local rnn = fused.nn.RNN(I, H, { cell = spec, dtype = 'float64' })
      rnn:load_state_dict({ weight_ih_l0 = cell.weight_ih, weight_hh_l0 = cell.weight_hh,
                            bias_ih_l0 = cell.bias_ih, bias_hh_l0 = cell.bias_hh })
      local xs, d_hs = fused.randn({ T, B, I }, o), fused.randn({ T, B, H }, o)
      local h0, c0 = fused.randn({ B, H }, o), fused.randn({ B, H }, o)
      local states = cell.has_c and { h0, c0 } or { h0 }
      local layer_states = {}
      for i, s in ipairs(states) do layer_states[i] = s:view(1, B, H) end
      local got = { rec:forward(xs, unpack(states)) }
      local want = { rnn:forward(xs, unpack(layer_states)) }
      close(got[1], want[1], 'hs')
      for i = 2, #want do close(got[i], want[i]:view(B, H), 'final state ' .. i) end
      close(rec:backward(d_hs), rnn:backward(d_hs), 'd_xs')
      for _, p in ipairs({ 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh' }) do
        close(cell.grad[p], rnn.grad[p .. '_l0'], 'grad.' .. p)
      end
    end)
  end

  it('says which cell it runs, and refuses a missing one', function()
    local spec = F.define(dofile('examples/cells/janet.lua')(F))
    assert.are.equal('fused.nn.RNNCell(input_size=2, hidden_size=3, cell=janet)',
                     tostring(fused.nn.RNNCell(2, 3, { cell = spec })))
    helper.assert_error(function() fused.nn.RNNCell(2, 3, { cell = 'janet' }) end,
                        "RNNCell: option 'cell' expected a cell from fused.cell.define or fused.ext.cell, got string")
    helper.assert_error(function() fused.nn.RNNCell(2, 3) end, "option 'cell' expected")
  end)
end)
