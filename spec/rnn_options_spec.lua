-- The recurrent layers' PyTorch options and calling convention, in float64: lengths as an int64
-- tensor; batch_first against the time-major run, transposed (exactly); dropout between layers
-- (seeded, training mode only, backward through the same mask, gradcheck); bias = false against
-- the same layer with zero biases, and its parameter names.
local helper = require 'spec.helper'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error

local o = { dtype = 'float64' }
local CLASSES = { 'LSTM', 'GRU', 'LLTM' }

-- forward and backward through m with its states in its order; the results and the parameters'
-- gradients (zeroed first), cloned.
local function run(m, xs, d_hs, lengths)
  local opts = lengths and { lengths = lengths }
  local out
  if m.has_c then out = { m:forward(xs, nil, nil, opts) } else out = { m:forward(xs, nil, opts) } end
  for i, t in ipairs(out) do out[i] = t:clone() end
  m:zero_grad()
  for _, t in ipairs({ m:backward(d_hs) }) do out[#out + 1] = t:clone() end
  for _, _, g in m:named_parameters() do out[#out + 1] = g:clone() end
  return out
end

-- Two layers of class with the same parameters; opts_a and opts_b their other options.
local function twins(class, opts_a, opts_b)
  local function make(extra)
    local opts = { num_layers = 2, bidirectional = true, dtype = 'float64' }
    for k, v in pairs(extra or {}) do opts[k] = v end
    return fused.nn[class](3, 4, opts)
  end
  local a, b = make(opts_a), make(opts_b)
  b:load_state_dict(a:state_dict(), { strict = false })
  return a, b
end

describe('recurrent layers', function()
  for _, class in ipairs(CLASSES) do
    it(class .. ': lengths as an int64 tensor give what the list gives', function()
      fused.manual_seed(1)
      local a, b = twins(class)
      local xs, d_hs = fused.randn({ 5, 3, 3 }, o), fused.randn({ 5, 3, 8 }, o)
      local list = { 5, 2, 3 }
      local want = run(a, xs, d_hs, list)
      local got = run(b, xs, d_hs, fused.tensor(list, { dtype = 'int64' }))
      for i = 1, #want do close(got[i], want[i], 0, 'result ' .. i) end
    end)

    it(class .. ': batch_first is the time-major run transposed, exactly', function()
      fused.manual_seed(2)
      local a, b = twins(class, nil, { batch_first = true })
      local xs, d_hs = fused.randn({ 5, 3, 3 }, o), fused.randn({ 5, 3, 8 }, o)
      local lengths = { 4, 5, 1 }
      local want = run(a, xs, d_hs, lengths)
      local got = run(b, xs:transpose(1, 2):contiguous(), d_hs:transpose(1, 2):contiguous(), lengths)
      assert.are.same({ 3, 5, 8 }, got[1]:shape())
      close(got[1], want[1]:transpose(1, 2), 0, 'hs')
      local n_states = a.has_c and 2 or 1
      for i = 2, 1 + n_states do close(got[i], want[i], 0, 'final state ' .. i) end
      local d_xs = 2 + n_states
      assert.are.same({ 3, 5, 3 }, got[d_xs]:shape())
      close(got[d_xs], want[d_xs]:transpose(1, 2), 0, 'd_xs')
      for i = d_xs + 1, #want do close(got[i], want[i], 0, 'result ' .. i) end
    end)

    it(class .. ': bias = false has no biases and runs as zero biases', function()
      fused.manual_seed(3)
      local with, without = twins(class, nil, { bias = false })
      for name, p in with:named_parameters() do
        if name:find('bias') then p:zero() end
      end
      local names, want_names = {}, {}
      for name in without:named_parameters() do names[#names + 1] = name end
      for name in with:named_parameters() do
        if not name:find('bias') then want_names[#want_names + 1] = name end
      end
      assert.are.same(want_names, names)
      assert.are.equal(#with.parameter_names / 2, #names) -- half of them, none named bias
      local xs, d_hs = fused.randn({ 4, 2, 3 }, o), fused.randn({ 4, 2, 8 }, o)
      local want, got = run(with, xs, d_hs), run(without, xs, d_hs)
      -- the results, then the weights' gradients (the biases' are skipped in want)
      local n_results = with.has_c and 6 or 4
      for i = 1, n_results do close(got[i], want[i], 1e-14, 'result ' .. i) end
      local i = n_results
      for name, _, g in with:named_parameters() do
        if not name:find('bias') then
          i = i + 1
          close(got[i], g, 1e-14, 'grad of ' .. name)
        end
      end
      -- a second step: the thrown-away bias gradients do not leak into anything
      close(run(without, xs, d_hs)[1], want[1], 1e-14, 'hs again')
    end)

    it(class .. ': dropout between layers, seeded, in training mode only', function()
      local plain, dropped = twins(class, nil, { dropout = 0.5 })
      local xs, d_hs = fused.randn({ 4, 2, 3 }, o), fused.randn({ 4, 2, 8 }, o)
      fused.manual_seed(4)
      local a = run(dropped, xs, d_hs)
      fused.manual_seed(4)
      local b = run(dropped, xs, d_hs)
      for i = 1, #a do close(b[i], a[i], 0, 'same seed, result ' .. i) end
      local want = run(plain, xs, d_hs)
      assert.is_true((a[1] - want[1]):abs():max() > 1e-3, 'training: the outputs are dropped')
      assert.are.equal(dropped, dropped:eval())
      assert.is_false(dropped.training)
      local e = run(dropped, xs, d_hs)
      for i = 1, #want do close(e[i], want[i], 0, 'eval, result ' .. i) end
      dropped:train()
      fused.manual_seed(4)
      close(run(dropped, xs, d_hs)[1], a[1], 0, 'training again')
    end)

    -- The mask fixed by reseeding before each forward: gradients through it, xs and the second
    -- layer's weights.
    it(class .. ': gradcheck through the dropout mask', function()
      fused.manual_seed(5)
      local m = fused.nn[class](2, 3, { num_layers = 2, dropout = 0.4, dtype = 'float64' })
      local inputs = { fused.randn({ 3, 2, 2 }, o) }
      local params = {}
      for _, p in m:named_parameters() do params[#params + 1] = p; inputs[#inputs + 1] = p:clone() end
      local f = {
        forward = function(xs, ...)
          for i, p in ipairs({ ... }) do params[i]:copy(p) end
          fused.manual_seed(11)
          local hs, h_n = m:forward(xs)
          return hs, h_n, 'ctx'
        end,
        backward = function(_, d_hs, d_hn)
          m:zero_grad()
          local g = { (m:backward(d_hs, d_hn)) }
          for _, _, grad in m:named_parameters() do g[#g + 1] = grad end
          return unpack(g)
        end,
      }
      local ok, worst = fused.gradcheck(f, inputs)
      assert.is_true(ok, worst and worst.message)
    end)
  end

  it('a step with every option and the shapes of the last makes no new storage', function()
    for _, class in ipairs(CLASSES) do
      local m = fused.nn[class](3, 4, { num_layers = 2, bidirectional = true, batch_first = true,
                                        dropout = 0.5, bias = false, dtype = 'float64' })
      local xs, d_hs = fused.randn({ 2, 5, 3 }, o), fused.randn({ 2, 5, 8 }, o)
      local lengths = fused.tensor({ 5, 3 }, { dtype = 'int64' })
      for _ = 1, 2 do run(m, xs, d_hs, lengths) end
      local before, after = fused.debug.allocations()
      for _ = 1, 3 do
        if m.has_c then m:forward(xs, nil, nil, { lengths = lengths })
        else m:forward(xs, nil, { lengths = lengths }) end
        m:backward(d_hs)
      end
      after = fused.debug.allocations()
      assert.are.equal(0, after - before, class .. ': storages made in 3 steady steps')
    end
  end)

  it('m(...) is m:forward(...)', function()
    fused.manual_seed(6)
    local a, b = twins('GRU')
    local xs = fused.randn({ 3, 2, 3 }, o)
    local hs, h_n = a(xs, nil, { lengths = { 3, 1 } })
    close(hs, b:forward(xs, nil, { lengths = { 3, 1 } }), 0, 'hs')
    close(h_n, select(2, b:forward(xs, nil, { lengths = { 3, 1 } })), 0, 'h_n')
  end)

  it('prints the options that are not the defaults, in PyTorch\'s order', function()
    assert.are.equal('fused.nn.GRU(input_size=2, hidden_size=3, num_layers=2, bias=false, '
                     .. 'batch_first=true, dropout=0.25, bidirectional=true)',
                     tostring(fused.nn.GRU(2, 3, { num_layers = 2, bias = false, batch_first = true,
                                                   dropout = 0.25, bidirectional = true })))
    assert.are.equal('fused.nn.LSTM(input_size=2, hidden_size=3)', tostring(fused.nn.LSTM(2, 3)))
  end)

  it('rejects options of the wrong kind', function()
    err(function() fused.nn.LSTM(2, 3, { batch_first = 1 }) end,
        "LSTM: option 'batch_first' expected a boolean, got number")
    err(function() fused.nn.GRU(2, 3, { bias = 'no' }) end,
        "GRU: option 'bias' expected a boolean, got string")
    err(function() fused.nn.LLTM(2, 3, { dropout = 1.5 }) end,
        "LLTM: option 'dropout' expected a probability in [0, 1], got 1.5")
    err(function() fused.nn.LSTM(2, 3, { batch_first = true }):forward(fused.randn({ 2, 3 })) end,
        "LSTM:forward: argument 'xs' expected B x T x 2", 'got [2, 3]')
  end)
end)
