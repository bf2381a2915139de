-- nn.Recurrent over every cell module (LSTMCell, GRUCell, LLTMCell, LLTMCellComposed) against
-- the fused sequence layer with the same parameters (nn.LSTM, nn.GRU, nn.LLTM), in float64:
-- outputs, final states, input and parameter gradients, on a full and on a ragged batch; the
-- calling convention's errors.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn
local close, err = helper.assert_close, helper.assert_error

local o = { dtype = 'float64' }

-- cell class, sequence class, and the sequence's name for each of the cell's parameters.
local CASES = {
  { 'LSTMCell', 'LSTM', function(name) return name .. '_l0' end },
  { 'GRUCell', 'GRU', function(name) return name .. '_l0' end },
  { 'LLTMCell', 'LLTM', function(name) return name end },
  { 'LLTMCellComposed', 'LLTM', function(name) return name end },
}

describe('nn.Recurrent', function()
  for _, case in ipairs(CASES) do
    local cell_class, seq_class, seq_name = case[1], case[2], case[3]
    it('over ' .. cell_class .. ' gives what nn.' .. seq_class .. ' gives', function()
      fused.manual_seed(1)
      local I, H, T, B = 3, 4, 5, 2
      local cell, seq = nn[cell_class](I, H, o), nn[seq_class](I, H, o)
      for name, p in cell:named_parameters() do seq[seq_name(name)]:copy_(p) end
      local rnn = nn.Recurrent(cell)
      assert.are.equal(cell.has_c, rnn.has_c)
      local xs, d_hs = fused.randn({ T, B, I }, o), fused.randn({ T, B, H }, o)
      local h0, c0, d_hT, d_cT = fused.randn({ B, H }, o), fused.randn({ B, H }, o),
                                 fused.randn({ B, H }, o), fused.randn({ B, H }, o)
      -- the states in the cell's order, and their gradients
      local states, d_states = { h0, c0 }, { d_hT, d_cT }
      if not cell.has_c then states[2], d_states[2] = nil, nil end
      local got, want = { rnn:forward(xs, unpack(states)) }, { seq:forward(xs, unpack(states)) }
      assert.are.equal(#want, #got)
      close(got[1], want[1], 1e-13, 'hs')
      -- the final states: B×H, nn.LSTM's and nn.GRU's 1×B×H
      for i = 2, #want do close(got[i], want[i]:view(B, H), 1e-13, 'final state ' .. i) end
      got, want = { rnn:backward(d_hs, unpack(d_states)) }, { seq:backward(d_hs, unpack(d_states)) }
      assert.are.equal(#want, #got)
      close(got[1], want[1], 1e-12, 'd_xs')
      for i = 2, #want do close(got[i], want[i]:view(B, H), 1e-12, 'initial state ' .. i) end
      local seq_grads = {}
      for name, _, g in seq:named_parameters() do seq_grads[name] = g end
      for name, _, g in cell:named_parameters() do
        close(g, seq_grads[seq_name(name)], 1e-12, 'gradient of ' .. name)
      end
    end)
  end

  for _, case in ipairs(CASES) do
    local cell_class, seq_class, seq_name = case[1], case[2], case[3]
    it('over ' .. cell_class .. ' runs a ragged batch as nn.' .. seq_class .. ' does', function()
      fused.manual_seed(2)
      local I, H, T, B = 2, 3, 5, 4
      local cell, seq = nn[cell_class](I, H, o), nn[seq_class](I, H, o)
      for name, p in cell:named_parameters() do seq[seq_name(name)]:copy_(p) end
      local rnn = nn.Recurrent(cell)
      local xs, d_hs = fused.randn({ T, B, I }, o), fused.randn({ T, B, H }, o)
      local h0, c0 = fused.randn({ B, H }, o), cell.has_c and fused.randn({ B, H }, o) or nil
      local d_hT, d_cT = fused.randn({ B, H }, o), cell.has_c and fused.randn({ B, H }, o) or nil
      local opts = { lengths = fused.tensor({ 5, 2, 1, 4 }, { dtype = 'int64' }) }
      local function both(f)
        local got, want = { f(rnn) }, { f(seq) }
        for i, t in ipairs(got) do got[i] = t:clone() end
        return got, want
      end
      local got, want = both(function(m)
        if cell.has_c then return m:forward(xs, h0, c0, opts) end
        return m:forward(xs, h0, opts)
      end)
      close(got[1], want[1], 1e-13, 'hs')
      for i = 2, #want do close(got[i], want[i]:view(B, H), 1e-13, 'final state ' .. i) end
      got, want = both(function(m) return m:backward(d_hs, d_hT, d_cT) end)
      close(got[1], want[1], 1e-12, 'd_xs')
      for i = 2, #want do close(got[i], want[i]:view(B, H), 1e-12, 'initial state ' .. i) end
      local seq_grads = {}
      for name, _, g in seq:named_parameters() do seq_grads[name] = g end
      for name, _, g in cell:named_parameters() do
        close(g, seq_grads[seq_name(name)], 1e-12, 'gradient of ' .. name)
      end
    end)
  end

  helper.gpu_it('over LSTMCell runs a ragged batch on the GPU as on the CPU', function()
    fused.manual_seed(3)
    local cpu = nn.Recurrent(nn.LSTMCell(2, 3, o))
    local gpu = nn.Recurrent(nn.LSTMCell(2, 3, o))
    gpu:load_state_dict(cpu:state_dict())
    gpu:cuda()
    local xs, d_hs = fused.randn({ 4, 3, 2 }, o), fused.randn({ 4, 3, 3 }, o)
    local opts = { lengths = { 4, 1, 3 } }
    local want = { cpu:forward(xs, nil, nil, opts) }
    local got = { gpu:forward(xs:cuda(), nil, nil, opts) }
    for i = 1, 3 do close(got[i]:cpu(), want[i], 1e-12, 'forward result ' .. i) end
    close(gpu:backward(d_hs:cuda()):cpu(), cpu:backward(d_hs), 1e-12, 'd_xs')
  end)

  it('is called as the sequence layers are', function()
    local xs = fused.randn({ 3, 2, 2 }, o)
    local gru = nn.Recurrent(nn.GRUCell(2, 3, o))
    err(function() gru:forward(xs, nil, { 3, 1 }) end, 'Recurrent:forward', "'opts'", 'got a list',
        'Recurrent:forward(xs, h0, {lengths = ...})')
    err(function() gru:forward(xs, nil, nil, {}) end, 'Recurrent:forward',
        'at most 2 arguments after xs')
    err(function() gru:forward(xs, nil, { lengths = { 3, 4 } }) end, 'Recurrent:forward',
        "'lengths'", 'integers 1 to 3')
    err(function() nn.Recurrent(nn.Linear(2, 3)) end, "Recurrent: argument 'cell' expected a cell module",
        'got Linear')
  end)
end)
