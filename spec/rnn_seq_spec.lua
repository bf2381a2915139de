-- nn.LSTM and nn.GRU against PyTorch's own (spec/golden/lstm_seq, gru_seq: one layer, stacked,
-- bidirectional, ragged), in float64 and float32; gradcheck of a 2-layer bidirectional ragged
-- sequence; the LLTM with layers and directions; bad input.
local helper = require 'spec.helper'
local ref = require 'spec.cell_reference'
local fused = helper.fused
local golden_rnn = require 'spec.golden_rnn'
local close, err = helper.assert_close, helper.assert_error

describe('LSTM and GRU sequences', function()
  for _, set in ipairs({ 'lstm_seq', 'gru_seq' }) do
    for _, case in ipairs(golden_rnn.sets[set].cases) do
      for _, dtype in ipairs({ 'float64', 'float32' }) do
        local class = golden_rnn.sets[set].class
        it(string.format('%s matches PyTorch on %s in %s', class, case, dtype), function()
          local path = set .. '/' .. case
          local g = helper.golden_case(path, dtype)
          for name, t in pairs(golden_rnn.run(set, case, dtype)) do
            close(t, g[name], helper.golden_tolerance(path, name, dtype), name)
          end
        end)
      end
    end
  end

  -- 2 layers, both directions, a ragged batch, through the module, in float64: inputs xs, h0,
  -- [c0], then every parameter in named_parameters order.
  for _, class in ipairs({ 'LSTM', 'GRU', 'LLTM' }) do
    it('gradcheck: ' .. class .. ', 2 layers, bidirectional, ragged', function()
      fused.manual_seed(7)
      local o = { dtype = 'float64' }
      local T, B, I, H = 4, 3, 2, 3
      local m = fused.nn[class](I, H, { num_layers = 2, bidirectional = true, dtype = 'float64' })
      local lengths = { 2, 4, 1 }
      local inputs = { fused.randn({ T, B, I }, o), fused.randn({ 4, B, H }, o) }
      if m.has_c then inputs[#inputs + 1] = fused.randn({ 4, B, H }, o) end
      local ok, worst = ref.gradcheck(m, inputs, { lengths = lengths })
      assert.is_true(ok, worst and worst.message)
    end)
  end

  -- Each sequence of a ragged batch, split over two threads, against the same sequence run
  -- alone for its own length: the engine multiplies only the rows that run a step, and the
  -- threads share the rows, and the products over all steps (T·B rows; the weight gradients'
  -- G·H rows) are split between them too. Sizes with partial vector panels and row tiles.
  for _, class in ipairs({ 'LSTM', 'GRU', 'LLTM' }) do
    it(class .. ': a ragged batch on two threads gives each sequence alone', function()
      local o = { dtype = 'float64' }
      local T, B, I, H = 11, 13, 5, 23
      local lengths = { 11, 3, 1, 7, 9, 2, 5, 8, 4, 6, 1, 11, 3 }
      fused.manual_seed(3)
      local m = fused.nn[class](I, H, o)
      local function forward(xs, lens)
        if m.has_c then return m:forward(xs, nil, nil, { lengths = lens }) end
        return m:forward(xs, nil, { lengths = lens })
      end
      local function grads()
        local g = {}
        for name, _, grad in m:named_parameters() do g[name] = grad:clone() end
        return g
      end
      local xs, d_hs = fused.randn({ T, B, I }, o), fused.randn({ T, B, H }, o)
      local threads = fused.get_num_threads()
      finally(function() fused.set_num_threads(threads) end)
      fused.set_num_threads(2)
      local hs, h_n = forward(xs, lengths)
      hs, h_n = hs:clone(), h_n:clone()
      m:zeroGradParameters()
      local d_xs = m:backward(d_hs):clone()
      local batch_grads = grads()
      fused.set_num_threads(1) -- the reference shares no split with the batch
      m:zeroGradParameters()
      for b = 1, B do
        local n, what = lengths[b], ' of sequence ' .. b
        local hs_b, h_b = forward(xs:narrow(1, 1, n):narrow(2, b, 1):contiguous())
        close(hs_b, hs:narrow(1, 1, n):narrow(2, b, 1), 1e-12, 'hs' .. what)
        -- h_n is (layers·directions)×B×H, the LLTM's B×H
        close(h_b, h_n:narrow(h_n:dim() - 1, b, 1), 1e-12, 'h_n' .. what)
        if n < T then
          assert.are.equal(0, hs:narrow(1, n + 1, T - n):narrow(2, b, 1):abs():max())
        end
        close(m:backward(d_hs:narrow(1, 1, n):narrow(2, b, 1):contiguous()),
              d_xs:narrow(1, 1, n):narrow(2, b, 1), 1e-12, 'd_xs' .. what)
      end
      for name, grad in pairs(grads()) do close(grad, batch_grads[name], 1e-12, name) end
    end)
  end

  it('names its parameters as PyTorch does, in its order', function()
    local names = {}
    for name in fused.nn.GRU(3, 4, { num_layers = 2, bidirectional = true }):named_parameters() do
      names[#names + 1] = name
    end
    local want = {}
    for _, suffix in ipairs({ '_l0', '_l0_reverse', '_l1', '_l1_reverse' }) do
      for _, p in ipairs({ 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh' }) do
        want[#want + 1] = p .. suffix
      end
    end
    assert.are.same(want, names)
    local lltm = {}
    for name in fused.nn.LLTM(3, 4, { num_layers = 2 }):named_parameters() do
      lltm[#lltm + 1] = name
    end
    assert.are.same({ 'weight', 'bias', 'weight_l1', 'bias_l1' }, lltm)
  end)

  it('loads a state_dict that PyTorch saved (a safetensors file, spec/fixtures)', function()
    local tensors = fused.load(helper.golden .. '/../fixtures/lstm_stacked.safetensors')
    local m = fused.nn.LSTM(4, 5, { num_layers = 2, dtype = 'float64' })
    for name, p in m:named_parameters() do p:copy(tensors[name]) end
    local g = helper.golden_case('lstm_seq/stacked', 'float64')
    local hs, h_n, c_n = m:forward(g.xs, g.h0, g.c0)
    close(hs, g.hs, 1e-10, 'hs'); close(h_n, g.h_n, 1e-10, 'h_n'); close(c_n, g.c_n, 1e-10, 'c_n')
  end)

  describe('bad input', function()
    local o = { dtype = 'float64' }
    local xs = fused.randn({ 5, 3, 2 }, o)
    local lstm = fused.nn.LSTM(2, 4, { num_layers = 2, dtype = 'float64' })
    local gru = fused.nn.GRU(2, 4, { bidirectional = true, dtype = 'float64' })

    it('lengths longer than T, zero, not integers, or the wrong count', function()
      err(function() lstm:forward(xs, nil, nil, { lengths = { 5, 6, 1 } }) end, 'LSTM:forward', "'lengths'",
          'integers 1 to 5', 'got 6 at position 2')
      err(function() gru:forward(xs, nil, { lengths = { 0, 1, 1 } }) end, 'GRU:forward', "'lengths'",
          'integers 1 to 5', 'got 0 at position 1')
      err(function() gru:forward(xs, nil, { lengths = { 1, 2.5, 1 } }) end, 'GRU:forward', "'lengths'",
          'got 2.5 at position 2')
      err(function() lstm:forward(xs, nil, nil, { lengths = { 1, 2 } }) end, 'LSTM:forward', "'lengths'",
          'expected 3 step counts', 'got 2')
      err(function() lstm:forward(xs, nil, nil, { lengths = 5 }) end, 'LSTM:forward', "'lengths'",
          'got number')
      err(function() lstm:forward(xs, nil, nil, { lengths = fused.tensor({ 1, 2, 3 }) }) end,
          'LSTM:forward', "'lengths'", '1-D int64 tensor', 'got a 1-D float32 tensor')
    end)

    -- The positional calls of before: lengths after the states, or in a state's place.
    it('lengths not in the options: an error that says how to call', function()
      local lengths = { 5, 2, 1 }
      err(function() lstm:forward(xs, nil, nil, lengths) end, 'LSTM:forward', "'opts'", 'got a list',
          'LSTM:forward(xs, h0, c0, {lengths = ...})')
      err(function() gru:forward(xs, nil, lengths) end, 'GRU:forward', "'opts'", 'got a list',
          'the states are h0 only', 'GRU:forward(xs, h0, {lengths = ...})')
      err(function() lstm:forward(xs, nil, lengths) end, 'LSTM:forward', "'c0'", 'got table',
          'LSTM:forward(xs, h0, c0, {lengths = ...})')
      local t = fused.tensor(lengths, { dtype = 'int64' })
      err(function() gru:forward(xs, nil, t) end, 'GRU:forward', "'opts'", 'got a tensor',
          'GRU:forward(xs, h0, {lengths = ...})')
      err(function() lstm:forward(xs, nil, nil, t) end, 'LSTM:forward', "'opts'", 'got a tensor')
      err(function() gru:forward(xs, nil, nil, { lengths = lengths }) end, 'GRU:forward',
          'at most 2 arguments after xs, got 3', 'GRU:forward(xs, h0, {lengths = ...})')
      err(function() gru:forward(xs, nil, { lenghts = lengths }) end, 'GRU:forward',
          "unknown option 'lenghts'")
      gru:forward(xs) -- a backward before any forward is that error
      err(function() gru:backward(fused.zeros({ 5, 3, 8 }, o), nil, fused.zeros({ 2, 3, 4 }, o)) end,
          'GRU:backward', 'expected (d_hs, d_hn), got 3 arguments')
      gru:backward(fused.zeros({ 5, 3, 8 }, o))
    end)

    it('h0 or c0 with the wrong number of layers times directions', function()
      err(function() lstm:forward(xs, fused.zeros({ 1, 3, 4 }, o)) end, 'LSTM:forward', "'h0'",
          'expected shape [2, 3, 4]', 'got [1, 3, 4]')
      err(function() gru:forward(xs, fused.zeros({ 3, 4 }, o)) end, 'GRU:forward', "'h0'",
          'expected shape [2, 3, 4]', 'got [3, 4]')
      err(function() lstm:forward(xs, nil, fused.zeros({ 2, 3, 5 }, o)) end, 'LSTM:forward',
          "'c0'", 'got [2, 3, 5]')
    end)

    it('xs of the wrong input size or dtype, options of the wrong kind', function()
      err(function() lstm:forward(fused.randn({ 5, 3, 3 }, o)) end, "LSTM:forward: argument 'xs'",
          'expected T x B x 2', 'input_size 2', 'got [5, 3, 3]')
      err(function() gru:forward(xs:float()) end, 'GRU:forward', "'xs'", 'expected float64 on cpu',
          "(the module's), got float32")
      err(function() fused.nn.LSTM(2, 4, { num_layers = 0 }) end, "LSTM: option 'num_layers'",
          'positive integer', 'got 0')
      err(function() fused.nn.GRU(2, 4, { bidirectional = 1 }) end, "GRU: option 'bidirectional'",
          'boolean', 'got number')
      err(function() fused.nn.GRU(2, 4, { layers = 2 }) end, 'GRU', "unknown option 'layers'")
    end)

    it('backward before forward, or twice', function()
      err(function() fused.nn.GRU(2, 4):backward(fused.zeros({ 5, 3, 4 }, o)) end,
          'GRU:backward', 'call forward first')
      gru:forward(xs)
      gru:backward(fused.zeros({ 5, 3, 8 }, o))
      err(function() gru:backward(fused.zeros({ 5, 3, 8 }, o)) end, 'GRU:backward',
          'backward runs once per forward')
    end)
  end)
end)
