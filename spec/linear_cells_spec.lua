-- fused.cell.define{linear = true} (issue 35): minGRU and minLSTM against lucidrains/minGRU-pytorch
-- (its parallel log-space path, checked against its sequential one, and the sequential path for
-- ragged batches and minLSTM's initial state), RG-LRU against recurrentgemma's PyTorch RGLRU with
-- segment resets, the LRU against the paper's complex equations, SRU against the paper's:
-- PyTorch float64 references of spec/data/linear_cells (gen.py beside them), through nn.RNN,
-- every result (outputs, final states, every gradient) within 1e-10 in float64 and by the
-- golden rule in float32, on every CPU vector path (H = 5 and 21: tails and whole vectors) and
-- the emulated CUDA device, gates deep in saturation among the cases; bidirectional layers with resets against every segment run alone
-- (the reverse direction restarting at each segment's last step, reading reset = 1 there);
-- gradcheck through stacked bidirectional ragged layers, with resets; the errors (a step not
-- linear in its states, resets of the wrong shape or dtype, resets past a sequence's length).
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell
local close, err, gpu_it = helper.assert_close, helper.assert_error, helper.gpu_it
local ref = require 'spec.cell_reference'

local cache = os.tmpname()
local o = { dtype = 'float64' }
local DATA = 'spec/data/linear_cells/'

local function example(file) return ref.example(file, cache .. '.d') end
local function config(case) return ref.config(DATA, case) end
local function load(case, name) return ref.load(DATA, case, name) end

-- Forward and backward of the case's reference through nn.RNN (its layers and directions) in
-- dtype on device (nil: the CPU); a state's initial value is given where the reference has its
-- gradient.
local function run_case(case, dtype, device)
  local c = config(case)
  local m = fused.nn.RNN(c.I, c.H, { cell = F.define(example(c.cell)), dtype = dtype, bias = c.bias,
                                     num_layers = c.num_layers, bidirectional = c.bidirectional })
  for name, p in m:named_parameters() do p:copy(load(case, name)) end
  if device then m:cuda() end
  local get = ref.getter(DATA, case, dtype, device)
  return ref.run(m, c, get, function(s)
    return ref.exists(DATA, case, 'd_' .. s .. '0') and get(s .. '0') or nil
  end), c
end

local CASES = { 'mingru_full', 'mingru_ragged', 'minlstm_full', 'minlstm_state_ragged',
                'rglru_resets', 'rglru_ragged_resets', 'lru_ragged', 'mingru_wide_ragged',
                'minlstm_wide', 'rglru_wide_ragged_resets', 'lru_wide_ragged', 'sru_ragged',
                'sru_wide', 'bidir_mingru_2layers_ragged_resets', 'bidir_rglru_ragged_resets',
                'bidir_lru_ragged_resets', 'bidir_sru_wide_resets', 'mingru_saturated',
                'minlstm_saturated', 'rglru_saturated_resets', 'lru_saturated', 'sru_saturated', 'mingru_long',
                'rglru_long_resets' }

describe('fused.cell.define{linear = true}', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  -- Every result of the case in dtype on device against the reference (float64 within 1e-10,
  -- float32 by the golden rule).
  local function check_case(case, dtype, device, what)
    local got, c = run_case(case, dtype, device)
    local checked = ref.compare(DATA, case, c, got, dtype, what)
    -- hs, d_xs, the weight's gradient, a final state per state at least
    assert.is_true(checked >= 3 + #c.states, case .. ': ' .. checked .. ' checked')
  end
  ref.every_path(CASES, check_case)

  for _, file in ipairs({ 'mingru', 'minlstm', 'lru', 'sru' }) do
    it('gradcheck: ' .. file .. ' through nn.RNN, 2 layers, bidirectional, ragged', function()
      local cell = F.define(example(file))
      fused.manual_seed(11)
      local T, B, I, H = 4, 3, 2, 3
      local m = fused.nn.RNN(I, H, { cell = cell, num_layers = 2, bidirectional = true, dtype = 'float64' })
      local lengths = { 2, 4, 1 }
      local inputs = { fused.randn({ T, B, I }, o) }
      for i = 1, #cell.states do inputs[i + 1] = fused.randn({ 4, B, H }, o) end
      local ok, worst = ref.gradcheck(m, inputs, { lengths = lengths })
      assert.is_true(ok, worst and worst.message)
    end)
  end

  it('gradcheck: rglru (reads x and reset) with resets and an initial state', function()
    local cell = F.define(example('rglru'))
    fused.manual_seed(12)
    local T, B, H = 5, 2, 3
    local m = fused.nn.RNN(H, H, { cell = cell, dtype = 'float64' })
    local resets = fused.zeros({ T, B }, { dtype = 'bool' })
    resets[1][1], resets[3][2] = true, true
    local inputs = { fused.randn({ T, B, H }, o), fused.randn({ B, H }, o) }
    local ok, worst = ref.gradcheck(m, inputs, { resets = resets })
    assert.is_true(ok, worst and worst.message)
  end)

  it('gradcheck: bidirectional with resets and ragged lengths (mingru 2 layers; rglru reads reset)',
     function()
    local T, B, H = 6, 3, 3
    local resets = fused.zeros({ T, B }, { dtype = 'bool' })
    resets[1][1], resets[3][1], resets[5][1], resets[2][2], resets[4][3] = true, true, true, true, true
    for _, c in ipairs({ { 'mingru', 2 }, { 'rglru', 1 } }) do
      local cell = F.define(example(c[1]))
      fused.manual_seed(16)
      local m = fused.nn.RNN(H, H, { cell = cell, num_layers = c[2], bidirectional = true,
                                     dtype = 'float64' })
      local inputs = { fused.randn({ T, B, H }, o), fused.randn({ 2 * c[2], B, H }, o) }
      local ok, worst = ref.gradcheck(m, inputs, { resets = resets, lengths = { 6, 4, 5 } })
      assert.is_true(ok, c[1] .. ': ' .. tostring(worst and worst.message))
    end
  end)

  for _, device in ipairs({ 'cpu', 'cuda' }) do
    local run = device == 'cpu' and it or gpu_it
    run('the reverse direction reads reset = 1 at the step before each reset, 0 at the end, on '
        .. device, function()
      -- a cell whose state is the reset its step reads
      local cell = F.define { name = 'reads_reset', gates = 1, state = { 'h' }, linear = true,
                              cache_dir = cache .. '.d', step = function(gx, s, p, x, reset)
        return { h = 0 * s.h + 0 * gx[1] + reset }
      end }
      local T, B = 6, 2
      local m = fused.nn.RNN(1, 1, { cell = cell, bidirectional = true, dtype = 'float64' })
      local resets = fused.zeros({ T, B }, { dtype = 'bool' })
      resets[1][1], resets[4][1], resets[3][2] = true, true, true
      local xs = fused.zeros({ T, B, 1 }, o)
      if device == 'cuda' then m:cuda(); xs, resets = xs:cuda(), resets:cuda() end
      local hs = m:forward(xs, nil, { resets = resets, lengths = { 6, 5 } }):cpu()
      assert.are.same({ 1, 0, 0, 1, 0, 0 }, hs:select(2, 1):select(2, 1):totable())
      assert.are.same({ 0, 0, 1, 0, 0, 0 }, hs:select(2, 1):select(2, 2):totable())
      assert.are.same({ 0, 0, 1, 0, 0, 0 }, hs:select(2, 2):select(2, 1):totable())
      assert.are.same({ 0, 1, 0, 0, 0, 0 }, hs:select(2, 2):select(2, 2):totable())
    end)
  end

  for _, device in ipairs({ 'cpu', 'cuda' }) do
    local run = device == 'cpu' and it or gpu_it
    run('sru as a linear cell (output h of the new c) equals the dense SRU, ragged, on ' .. device,
        function()
      local lin = F.define(example('sru'))
      local dense = F.define(example('sru_dense'))
      fused.manual_seed(14)
      local T, B, I, H = 6, 3, 4, 5
      local m = fused.nn.RNN(I, H, { cell = lin, dtype = 'float64' })
      local d = fused.nn.RNN(I, H, { cell = dense, dtype = 'float64' })
      d.weight_ih_l0:copy(m.weight_ih_l0)
      d.bias_ih_l0:copy(m.bias_ih_l0)
      d.weight_hh_l0:zero_()
      d.bias_hh_l0:zero_()
      if device == 'cuda' then m:cuda(); d:cuda() end
      local function on(t) return device == 'cuda' and t:cuda() or t end
      local xs, c0 = on(fused.randn({ T, B, I }, o)), on(fused.randn({ B, H }, o))
      local lengths = { 6, 2, 4 }
      local hs, c_n = m:forward(xs, c0, { lengths = lengths })
      local hs2, _, c_n2 = d:forward(xs, on(fused.zeros({ B, H }, o)), c0, { lengths = lengths })
      close(hs:cpu(), hs2:cpu(), 1e-12, 'hs')
      close(c_n:cpu(), c_n2:cpu(), 1e-12, 'c_n')
      local r, s = on(fused.randn({ T, B, H }, o)), on(fused.randn({ B, H }, o))
      m:zeroGradParameters(); d:zeroGradParameters()
      local d_xs, d_c0 = m:backward(r, s)
      local d_xs2, _, d_c02 = d:backward(r, nil, s)
      close(d_xs:cpu(), d_xs2:cpu(), 1e-12, 'd_xs')
      close(d_c0:cpu(), d_c02:cpu(), 1e-12, 'd_c0')
      close(m.grad.weight_ih_l0:cpu(), d.grad.weight_ih_l0:cpu(), 1e-12, 'd_weight_ih')
      close(m.grad.bias_ih_l0:cpu(), d.grad.bias_ih_l0:cpu(), 1e-12, 'd_bias_ih')
    end)
  end

  it("compute = 'bfloat16' rounds the input GEMM's operands to bfloat16", function()
    local cell = F.define(example('mingru'))
    fused.manual_seed(13)
    local m = fused.nn.RNN(8, 6, { cell = cell, compute = 'bfloat16' })
    local plain = fused.nn.RNN(8, 6, { cell = cell })
    local xs = fused.randn({ 5, 3, 8 })
    for name, p in m:named_parameters() do plain[name]:copy(p:bfloat16():float()) end
    plain.bias_ih_l0:copy(m.bias_ih_l0) -- the bias is added in float32
    local hs = m:forward(xs)
    close(hs, plain:forward(xs:bfloat16():float()), 1e-6, 1e-6, 'hs')
    for name, p in m:named_parameters() do plain[name]:copy(p) end
    assert.is_true((hs - plain:forward(xs)):abs():max() > 1e-4) -- it did round
    m:zeroGradParameters()
    local d_xs = m:backward(fused.ones({ 5, 3, 6 }))
    assert.are.same({ 5, 3, 8 }, d_xs:shape())
  end)

  it('a reset starts the states again from their initial values (minGRU, lru)', function()
    for _, file in ipairs({ 'mingru', 'lru' }) do
      local cell = F.define(example(file))
      fused.manual_seed(15)
      local T, B, I, H = 6, 2, 3, 4
      local m = fused.nn.RNN(I, H, { cell = cell, dtype = 'float64' })
      local xs = fused.randn({ T, B, I }, o)
      local h0 = {}
      for i = 1, #cell.states do h0[i] = fused.randn({ B, H }, o) end
      local resets = fused.zeros({ T, B }, { dtype = 'bool' })
      resets[4][2] = true
      h0[#cell.states + 1] = { resets = resets }
      local hs = m:forward(xs, unpack(h0, 1, #cell.states + 1)):clone()
      -- row 2 from step 4 is the sequence xs[4..T] alone from the same initial states
      local tail = xs:narrow(1, 4, T - 3):contiguous()
      h0[#cell.states + 1] = nil
      local alone = m:forward(tail, unpack(h0, 1, #cell.states))
      close(hs:narrow(1, 4, T - 3):select(2, 2), alone:select(2, 2), 1e-12, file)
      -- and row 1, with no reset, goes on from its own past
      assert.is_true((hs:narrow(1, 4, T - 3):select(2, 1) - alone:select(2, 1)):abs():max() > 1e-3)
    end
  end)

  it('has no recurrent weights: weight_ih, bias_ih, then the per-unit parameters', function()
    local m = fused.nn.RNN(3, 3, { cell = F.define(example('rglru')), bidirectional = true })
    local names = {}
    for name in m:named_parameters() do names[#names + 1] = name end
    assert.are.same({ 'weight_ih_l0', 'bias_ih_l0', 'a_param_l0', 'weight_ih_l0_reverse',
                      'bias_ih_l0_reverse', 'a_param_l0_reverse' }, names)
  end)

  it('refuses a step that is not linear in its states, naming the state and the term', function()
    local def = { name = 'not_linear', gates = 1, state = { 'h', 'c' }, linear = true,
                  cache_dir = cache .. '.d', step = function(gx, s)
      return { h = s.h + gx[1], c = s.c * F.tanh(s.h) }
    end }
    err(function() F.define(def) end, "state 'c' is not linear in the states")
    err(function() F.define(def) end, 'F.tanh(s.h)')
    def.step = function(gx, s) return { h = s.h * s.c, c = s.c } end
    err(function() F.define(def) end, "state 'h' is not linear in the states (a linear cell's "
        .. 'new states are A s + b with A and b of gx, p, x and reset only): the term (s.h * s.c)')
    def.step = function(gx, s) return { h = gx[1] / s.h, c = s.c } end
    err(function() F.define(def) end, 'the term (gx[1] / s.h)')
    def.step = function(gx, s) return { h = F.where(F.gt(s.c, 0), s.h, gx[1]), c = s.c } end
    err(function() F.define(def) end, 'F.where(F.lt(0, s.c), s.h, gx[1])')
    def.step = function(gx, s) return { h = F.stop_gradient(s.h) + gx[1], c = s.c } end
    err(function() F.define(def) end, 'F.stop_gradient(s.h)')
  end)

  it('refuses more states than the scan engine holds, at define', function()
    local names = { 'a', 'b', 'c', 'd', 'e' }
    err(function() F.define { name = 'five', gates = 1, state = names, linear = true,
                              cache_dir = cache .. '.d', step = function(gx, s)
      return { a = s.a + gx[1], b = s.b, c = s.c, d = s.d, e = s.e }
    end } end, "fused.cell.define: five: a linear cell holds 1 to 4 states (the scan engine's S x "
        .. 'S coefficients per unit), got 5 (state = {a, b, c, d, e})')
  end)

  it('an output that is no state must be returned, and read the new states only', function()
    local def = { name = 'bad_output', gates = 2, state = { 'c' }, output = { 'h' }, linear = true,
                  cache_dir = cache .. '.d', step = function(gx, s)
      return { c = s.c + gx[1], h = F.tanh(s.c) * gx[2] }
    end }
    err(function() F.define(def) end, "fused.cell.define: bad_output: output 'h' reads the old "
        .. "state 'c' (an output is an expression of the new states, gx, p, x and reset)")
    def.step = function(gx, s) return { c = s.c * gx[2] + gx[1] } end
    err(function() F.define(def) end, "the step returned no output 'h' (option 'output' names it)")
    def.step = function(gx, s) return { c = s.c * gx[2] + gx[1], h = gx[1], y = gx[2] } end
    err(function() F.define(def) end, "the step returned 'y', which is no state (state = {c}) nor "
        .. 'output')
  end)

  it("takes only a list of states, and 'linear' as a boolean", function()
    err(function() F.define { name = 'lin_h', gates = 1, state = 'h', linear = true,
                              step = function() end } end,
        "option 'linear' takes a state given as a list of names")
    err(function() F.define { name = 'lin_h', gates = 1, state = { 'h' }, linear = 1,
                              step = function() end } end,
        "option 'linear' expected a boolean, got number")
  end)

  it('refuses resets of the wrong shape or dtype, past a length, or on another cell', function()
    local m = fused.nn.RNN(3, 3, { cell = F.define(example('rglru')), dtype = 'float64' })
    local xs = fused.randn({ 4, 2, 3 }, o)
    err(function() m:forward(xs, nil, { resets = fused.zeros({ 4, 2 }, o) }) end,
        "RNN:forward: option 'resets' expected a bool tensor of shape [4, 2] (T, B) on cpu (a 0/1 "
        .. 'tensor of another dtype: resets:ne(0)), got a float64 tensor of shape [4, 2] on cpu')
    err(function() m:forward(xs, nil, { resets = fused.zeros({ 2, 4 }, { dtype = 'bool' }) }) end,
        'got a bool tensor of shape [2, 4] on cpu')
    local r = fused.zeros({ 4, 2 }, { dtype = 'bool' })
    r[4][2] = true
    err(function() m:forward(xs, nil, { resets = r, lengths = { 4, 3 } }) end,
        "RNN:forward: option 'resets' expected no reset past a sequence's length, got one at "
        .. 'step 4 of sequence 2, whose length is 3')
    local lstm = fused.nn.RNN(3, 3, { cell = F.define(example('sru_dense')),
                                      dtype = 'float64' })
    err(function() lstm:forward(xs, nil, nil, { resets = r }) end,
        "RNN:forward: option 'resets' takes a linear cell")
  end)

  it('nn.RNNCell and the cell engine refuse a linear cell, saying what runs it', function()
    local cell = F.define(example('mingru'))
    err(function() fused.nn.RNNCell(3, 3, { cell = cell }) end,
        "RNNCell: option 'cell': the mingru cell is linear (the scan engine runs its layers); run "
        .. 'it as nn.RNN over one step, T = 1')
    local xs, h0 = fused.randn({ 2, 1, 3 }), fused.zeros({ 1, 3 })
    local w = fused.randn({ 6, 3 })
    err(function() fused.functional.rnn_forward(cell, xs, w, w, w[1], w[1], h0) end,
        "rnn_forward: argument 'cell': the mingru cell is linear, run by nn.RNN on the scan engine")
  end)

  it('a cell that reads x needs the input size to equal hidden_size', function()
    err(function() fused.nn.RNN(4, 3, { cell = F.define(example('rglru')) }) end,
        "RNN: cell 'rglru' reads x, the layer's input at its unit, which needs the input size to "
        .. 'equal hidden_size (3); layer 0 takes 4')
  end)

  it('refuses heads: a linear cell has no recurrent weights to cut into heads', function()
    err(function() fused.nn.RNN(8, 8, { cell = F.define(example('mingru')), heads = 2, bias = false }) end,
        "RNN: option 'heads' is not taken by the linear cell 'mingru': it has no recurrent weights "
        .. 'to cut into heads')
  end)
end)
