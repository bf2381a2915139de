-- fused.cell.define with a list of states, per-unit parameters and selections (issue 34): the
-- sLSTM (examples/cells/slstm.lua) against xLSTM's vanilla pointwise step and the peephole
-- LSTM (examples/cells/peephole_lstm.lua) against TensorFlow's use_peepholes equations,
-- PyTorch float64 references of spec/data/cell_states (gen.py beside them; the heads = 2, 4 and
-- H sets are spec/slstm_spec.lua's), zero and nonzero initial states, whole and ragged, within 1e-10
-- on outputs, final states and every gradient, on the CPU and the emulated CUDA device (float32
-- by the golden rule, on every CPU path too); both through nn.RNN (2 layers, both directions,
-- ragged) pass gradcheck, in float64; the new functions' derivatives too; wrong definitions
-- fail at define, saying what.
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell
local close, err, gpu_it = helper.assert_close, helper.assert_error, helper.gpu_it
local ref = require 'spec.cell_reference'

local cache = os.tmpname()
local o = { dtype = 'float64' }
local DATA = 'spec/data/cell_states/'

local function example(file) return ref.example(file, cache .. '.d') end
local function config(case) return ref.config(DATA, case) end
local function load(case, name) return ref.load(DATA, case, name) end

-- Forward and backward of the case's reference through nn.RNN on device in dtype (float64
-- unless given): every result, by the reference's name.
local function run_case(case, device, dtype)
  local c = config(case)
  local m = fused.nn.RNN(c.I, c.H, { cell = F.define(example(c.cell)), dtype = dtype or 'float64' })
  for name, p in m:named_parameters() do p:copy(ref.load(DATA, case, name, dtype)) end
  if device then m:cuda() end
  return ref.run(m, c, function(name)
    local t = ref.load(DATA, case, name, dtype)
    return device and t:cuda() or t
  end), c
end

local function cases(prefix)
  local list = {}
  for _, init in ipairs({ 'zero', 'state' }) do
    for _, shape in ipairs({ 'full', 'ragged' }) do list[#list + 1] = prefix .. init .. '_' .. shape end
  end
  return list
end
local CASES = cases('slstm_h1_')
CASES[#CASES + 1] = 'peephole_zero_ragged'
CASES[#CASES + 1] = 'peephole_state_full'

describe('fused.cell.define: states, parameters, selections', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  for _, case in ipairs(CASES) do
    for _, device in ipairs({ false, 'cuda' }) do
      local test = device and gpu_it or it
      test(case .. ': outputs, final states and every gradient equal the reference within 1e-10'
           .. (device and ' on the emulated CUDA device' or ''), function()
        local got, c = run_case(case, device)
        local n = 0
        for name, t in pairs(got) do
          local want = load(case, name)
          t = device and t:cpu() or t
          if t.ndim ~= want.ndim then t = t:contiguous():view(want:shape()) end -- (1, B, H) states
          close(t, want, 1e-10, case .. ' ' .. name)
          n = n + 1
        end
        assert.are.equal(2 + 2 * #c.states + 4 + #c.params, n)
        assert.is_true(load(case, 'd_weight_hh_l0'):abs():max() > 1e-3, 'a reference checks something')
      end)
    end
  end

  ref.every_path(CASES, function(case, dtype, device, what)
    local got, c = run_case(case, device, dtype)
    assert.are.equal(2 + 2 * #c.states + 4 + #c.params, ref.compare(DATA, case, c, got, dtype, what))
  end)

  for _, file in ipairs({ 'slstm', 'peephole_lstm' }) do
    it('gradcheck: ' .. file .. ' through nn.RNN, 2 layers, bidirectional, ragged', function()
      local cell = F.define(example(file))
      fused.manual_seed(7)
      local T, B, I, H = 4, 3, 2, 3
      local m = fused.nn.RNN(I, H, { cell = cell, num_layers = 2, bidirectional = true, dtype = 'float64' })
      local lengths = { 2, 4, 1 }
      local inputs = { fused.randn({ T, B, I }, o) }
      for i = 1, #cell.states do
        inputs[i + 1] = fused.randn({ 4, B, H }, o)
        -- a normaliser n is positive: a zero one selects the first step's stabiliser
        if cell.states[i] == 'n' then inputs[i + 1]:abs_():add_(0.5) end
      end
      local ok, worst = ref.gradcheck(m, inputs, { lengths = lengths })
      assert.is_true(ok, worst and worst.message)
    end)
  end

  it('per-unit parameters are named as PyTorch names its tensors, with their init', function()
    local def = example('peephole_lstm')
    def.init = { w_ci = 'zeros', w_cf = 'ones' }
    local m = fused.nn.RNN(3, 4, { cell = F.define(def), bidirectional = true })
    local names = {}
    for name in m:named_parameters() do names[#names + 1] = name end
    assert.are.same({ 'weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'w_ci_l0',
                      'w_cf_l0', 'w_co_l0', 'weight_ih_l0_reverse', 'weight_hh_l0_reverse',
                      'bias_ih_l0_reverse', 'bias_hh_l0_reverse', 'w_ci_l0_reverse',
                      'w_cf_l0_reverse', 'w_co_l0_reverse' }, names)
    assert.are.equal(0, m.w_ci_l0:abs():max())
    assert.are.equal(1, m.w_cf_l0:min())
    assert.is_true(m.w_co_l0:abs():max() > 0 and m.w_co_l0:abs():max() <= 0.5)
    assert.is_not_nil(m:state_dict().w_co_l0_reverse)
  end)

  it('a module without biases still learns its per-unit parameters (gradcheck)', function()
    local cell = F.define(example('peephole_lstm'))
    fused.manual_seed(3)
    local m = fused.nn.RNN(2, 3, { cell = cell, bias = false, dtype = 'float64' })
    local xs = fused.randn({ 3, 2, 2 }, o)
    local ok, worst = ref.gradcheck(m, { xs })
    assert.is_true(ok, worst and worst.message)
  end)

  -- A cell of every new function, gradchecked: where over each comparison, logsigmoid, sin,
  -- cos, an output state other than the first.
  it('gradcheck: where, the comparisons, logsigmoid, sin, cos, output', function()
    local cell = F.define { name = 'new_functions', gates = 2, state = { 'h', 'a' },
      params = { 'u' }, output = 'a', cache_dir = cache .. '.d',
      step = function(gx, gh, s, p)
        local x, y = gx[1] + gh[1], gx[2] + gh[2]
        local w = F.where(F.lt(x, y), F.sin(x), F.cos(y)) + F.where(F.gt(x, 0.3), x * y, -y)
          + F.where(F.le(s.a, 0), F.logsigmoid(x), 2 * s.a) + F.where(F.ge(y, x), y, 0.5)
          + F.where(F.eq(s.h, 0), 1, s.h) * p.u * y
        return { h = F.tanh(w + p.u * s.h), a = F.sin(s.a) * F.cos(x) }
      end }
    fused.manual_seed(5)
    local m = fused.nn.RNN(2, 3, { cell = cell, num_layers = 2, bidirectional = true, dtype = 'float64' })
    local inputs = { fused.randn({ 3, 2, 2 }, o), fused.randn({ 4, 2, 3 }, o), fused.randn({ 4, 2, 3 }, o) }
    local ok, worst = ref.gradcheck(m, inputs, { lengths = { 3, 1 } })
    assert.is_true(ok, worst and worst.message)
  end)

  it('F.stop_gradient: its argument counts forward and gets no gradient', function()
    local cell = F.define { name = 'stopped', gates = 1, state = { 'h' }, cache_dir = cache .. '.d',
      step = function(gx, gh, s) return { h = F.tanh(gx[1] + F.stop_gradient(gh[1] * s.h)) } end }
    fused.manual_seed(9)
    local m = fused.nn.RNN(2, 3, { cell = cell, dtype = 'float64' })
    local xs = fused.randn({ 4, 2, 2 }, o)
    local hs = m:forward(xs):clone()
    m:zeroGradParameters()
    local _, d_h0 = m:backward(hs:clone():fill_(1))
    assert.are.equal(0, m.grad.weight_hh_l0:abs():max())
    assert.are.equal(0, m.grad.bias_hh_l0:abs():max())
    assert.are.equal(0, d_h0:abs():max())
    assert.is_true(m.grad.weight_ih_l0:abs():max() > 0)
    m.weight_hh_l0:add_(1)
    assert.is_true((m:forward(xs) - hs):abs():max() > 1e-3, 'the stopped product counts forward')
  end)

  it('F.source: the text both devices compile, its states in c and its parameters in b_hh', function()
    local src = F.source(F.define(example('peephole_lstm')))
    assert.truthy(src:find("Register with gates = 4, state = {'h', 'c'}, saved = 11, d_ih = 0, params = 3.", 1, true), src)
    assert.truthy(src:find('const vec p_w_co_ = vload(b_hh + 6 * H + j, m);', 1, true), src)
    assert.truthy(src:find('vstore%(s %+ 6 %* H %+ j, mul%d+, m%);'), src) -- d w_co, after d_hh's 4
    src = F.source(F.define(example('slstm')))
    assert.truthy(src:find('const vec s_m_ = vload(c + 2 * H + j, m);', 1, true), src)
    assert.truthy(src:find('vselect%(s_n_ == vsplat%(0%.0%), add%d+, max%d+%)'), src)
  end)

  it('the layer output is the state output names', function()
    local def = example('slstm')
    def.output, def.name = 'c', 'slstm_out_c'
    local m = fused.nn.RNN(2, 3, { cell = F.define(def), dtype = 'float64' })
    local hs, _, c_n = m:forward(fused.randn({ 2, 1, 2 }, o))
    close(hs:select(1, 2), c_n:select(1, 1), 0)
  end)

  it('output = a list: those states side by side, each sequence zero past its end (gradcheck)', function()
    local def = example('slstm')
    def.output, def.name = { 'h', 'n' }, 'slstm_out_hn'
    local cell = F.define(def)
    fused.manual_seed(6)
    local m = fused.nn.RNN(2, 3, { cell = cell, num_layers = 2, bidirectional = true, dtype = 'float64' })
    local xs = fused.randn({ 3, 2, 2 }, o)
    local hs, h_n, _, n_n = m:forward(xs, nil, nil, nil, nil, { lengths = { 3, 2 } })
    assert.are.same({ 3, 2, 12 }, hs:shape())
    close(hs:select(1, 3):select(1, 1):narrow(1, 1, 3), h_n:select(1, 3):select(1, 1), 0)
    close(hs:select(1, 3):select(1, 1):narrow(1, 4, 3), n_n:select(1, 3):select(1, 1), 0)
    assert.are.equal(0, hs:select(1, 3):select(1, 2):narrow(1, 1, 6):abs():max())
    local inputs = { xs }
    for _, p in m:named_parameters() do inputs[#inputs + 1] = p:clone() end
    local ok, worst = fused.gradcheck({
      forward = function(...)
        local args = { ... }
        local i = 1
        for _, p in m:named_parameters() do i = i + 1; p:copy(args[i]) end
        return m:forward(args[1], nil, nil, nil, nil, { lengths = { 3, 2 } })
      end,
      backward = function(_, ...)
        m:zeroGradParameters()
        local g = { (m:backward(...)) }
        for _, _, grad in m:named_parameters() do g[#g + 1] = grad end
        return unpack(g)
      end,
    }, inputs)
    assert.is_true(ok, worst and worst.message)
  end)

  gpu_it('output = a list, 2 bidirectional layers, ragged: the emulated CUDA device equals the CPU', function()
    local def = example('slstm')
    def.output, def.name = { 'h', 'n' }, 'slstm_out_hn'
    local cell = F.define(def)
    fused.manual_seed(8)
    local cpu = fused.nn.RNN(3, 4, { cell = cell, num_layers = 2, bidirectional = true, dtype = 'float64' })
    local gpu = fused.nn.RNN(3, 4, { cell = cell, num_layers = 2, bidirectional = true, dtype = 'float64' })
    for name, p in cpu:named_parameters() do gpu[name]:copy(p) end
    gpu:cuda()
    local xs, d_hs = fused.randn({ 5, 3, 3 }, o), fused.randn({ 5, 3, 16 }, o)
    local h0, m0 = fused.randn({ 4, 3, 4 }, o), fused.randn({ 4, 3, 4 }, o)
    local lengths = { 5, 2, 4 }
    local want = { cpu:forward(xs, h0, nil, nil, m0, { lengths = lengths }) }
    local got = { gpu:forward(xs:cuda(), h0:cuda(), nil, nil, m0:cuda(), { lengths = lengths }) }
    for i = 1, #want do close(got[i]:cpu(), want[i], 1e-12, 'result ' .. i) end
    want = { cpu:backward(d_hs) }
    got = { gpu:backward(d_hs:cuda()) }
    for i = 1, #want do close(got[i]:cpu(), want[i], 1e-12, 'gradient ' .. i) end
    for name, _, g in cpu:named_parameters() do close(gpu.grad[name]:cpu(), g, 1e-12, name) end
  end)

  it('the engine checks the new fields and the joint bias and states it is given', function()
    local ffi, C = require 'ffi', require('fused.lib').C
    local function register(t)
      local def = ffi.new('fused_cell_def', t)
      assert.are.equal(-1, C.fused_rnn_register_cell(def))
      return ffi.string(C.fused_last_error())
    end
    local base = { name = 'bad', gates = 2, saved = 5, h_prev = 4 }
    local function with(k, v) local t = {} for a, b in pairs(base) do t[a] = b end t[k] = v return t end
    assert.truthy(register(with('has_c', -1)):find("field 'has_c' expected 0..256 (blocks of cell state), got -1", 1, true))
    assert.truthy(register(with('params', -2)):find("field 'params' expected 0..256, got -2", 1, true))
    assert.truthy(register(with('outputs', -1)):find("field 'outputs' expected 0..256 (0 or 1: one), got -1", 1, true))
    -- the parameters' gradient blocks follow d_hh's gates inside saved
    assert.truthy(register(with('params', 4)):find("field 'params' expected at most 3 (their gradients take the blocks after d_hh's 2 gates, inside saved = 5), got 4", 1, true))
    local cell = F.define(example('peephole_lstm'))
    local Fn, H = fused.functional, 3
    local xs, h0, c0 = fused.randn({ 2, 1, 2 }, o), fused.zeros({ 1, H }, o), fused.zeros({ 1, H }, o)
    local w_ih, w_hh = fused.randn({ 4 * H, 2 }, o), fused.randn({ 4 * H, H }, o)
    local b = fused.zeros({ 4 * H }, o)
    err(function() Fn.rnn_forward(cell, xs, w_ih, w_hh, b, b, h0, c0) end,
        "rnn_forward: argument 'b_hh' expected shape [21] (G H biases then the cell's per-unit parameters, H each), got [12]")
    local slstm = F.define(example('slstm'))
    err(function() Fn.rnn_forward(slstm, xs, w_ih, w_hh, b, b, h0, c0) end,
        "rnn_forward: argument 'c0' expected shape [1, 9] (B x (states after h) H), got [1, 3]")
    local m = fused.nn.RNN(2, H, { cell = slstm, dtype = 'float64' })
    err(function() m:forward(xs, h0, c0, fused.zeros({ 2, H }, o)) end,
        "RNN:forward: argument 'n0' expected shape [1, 1, 3]")
    err(function() m:forward(xs, h0, c0, h0, h0, {}, h0) end,
        'RNN:forward: expected at most 5 arguments after xs, got 6 (call RNN:forward(xs, h0, c0, n0, m0, {lengths = ...}))')
  end)

  it('a definition that is wrong says what, at define', function()
    local function def(t)
      t.name, t.gates, t.cache_dir = t.name or 'bad_states', t.gates or 1, cache .. '.d'
      t.state = t.state or { 'h', 'c' }
      return t
    end
    local step = function(gx, gh, s) return { h = s.c + gx[1], c = s.h + gh[1] } end
    err(function() F.define(def { step = function(gx, gh, s) return { h = s.h * gx[1] } end }) end,
        "fused.cell.define: bad_states: the step returned no state 'c' (it must return every state: h, c)")
    err(function() F.define(def { step = function(gx, gh, s) return { h = s.c + gx[1], c = s.h, q = s.h } end }) end,
        "fused.cell.define: bad_states: the step returned 'q', which is no state (state = {h, c})")
    err(function() F.define(def { step = function(gx, gh, s) return s.h + gx[1] end }) end,
        "step returned 1 result (a symbol); a step of state {'h', 'c'} returns a table of the new states by name")
    err(function() F.define(def { step = function(gx, gh, s) return { h = s.q, c = s.h } end }) end,
        "s.q: no such state (h, c)")
    err(function() F.define(def { step = function(gx, gh, s, p) return { h = s.c * p.w, c = s.h } end }) end,
        "p.w: no such parameter (the cell has none: option 'params' names them)")
    -- the shorthands' steps take (gx, gh, h[, c]): reading x there says where it comes with
    err(function()
      F.define(def { state = 'h', step = function(gx, gh, h, x) return F.tanh(gx[1] + gh[1] * h + x) end })
    end, "a cell's expression takes symbols and numbers, got nil (a step of state 'h' or 'hc' takes "
         .. "(gx, gh, h[, c]); x and per-unit parameters come with a list of states: state = {'h'}, "
         .. 'step(gx, gh, s, p, x))')
    err(function() F.define(def { state = { 'h', 'int' }, step = step }) end,
        "option 'state': 'int' is a C keyword")
    err(function() F.define(def { state = { 'h', 'h' }, step = step }) end,
        "option 'state': the name 'h' is taken (twice in the list)")
    err(function() F.define(def { params = { 'c' }, step = step }) end,
        "option 'params': the name 'c' is taken (a state)")
    err(function() F.define(def { name = 'while', step = step }) end,
        "fused.cell.define: option 'name' expected a C name, got the C keyword 'while'")
    err(function() F.define(def { name = 'lstm', step = step }) end,
        "fused.cell.define: option 'name': 'lstm' is a built-in cell's name; give yours another")
    -- what the step returns is checked deep in define: the error still points at the user's line
    local ok, e = pcall(function()
      local cell = F.define(def { step = function(gx, gh, s) return { h = s.h + gx[1] } end })
      return cell
    end)
    assert.is_false(ok)
    assert.truthy(e:match("^[^:]*cell_states_spec%.lua:%d+: fused%.cell%.define: bad_states: the step returned no state 'c'"), e)
    err(function() F.define(def { state = 'hc', params = { 'u' }, step = step }) end,
        "option 'params' takes a state given as a list of names")
    err(function() F.define(def { params = { 'u' }, init = { u = 'normal' }, step = step }) end,
        "option 'init': u expected 'zeros', 'ones' or 'uniform', got normal")
    err(function() F.define(def { params = { 'u' }, init = { v = 'ones' }, step = step }) end,
        "option 'init': 'v' is no parameter (params = {u})")
    err(function() F.define(def { output = 'q', step = step }) end,
        "option 'output' expected a state's name or a list of distinct ones (h, c), got q")
    err(function() F.define(def { output = { 'c', 'c' }, step = step }) end,
        "option 'output' expected a state's name or a list of distinct ones (h, c), got 'c' twice")
    err(function()
      F.define(def { step = function(gx, gh, s) return { h = F.where(s.h, gx[1], gh[1]), c = s.c } end })
    end, "fused.cell.where: argument 'cond' expected a comparison (F.lt, F.le, F.gt, F.ge, F.eq), got a symbol")
    err(function()
      F.define(def { step = function(gx, gh, s) return { h = F.lt(s.h, gx[1]) + 1, c = s.c } end })
    end, 'a comparison (F.lt, F.le, F.gt, F.ge, F.eq) is no value: it is the condition of F.where(cond, a, b)')
    err(function()
      F.define(def { step = function(gx, gh, s) return { h = s.h + gx[1], c = F.gt(s.c, 0) } end })
    end, "state 'c' is a comparison; expected an expression of gx, gh, s, p")
  end)

  it('compute = bfloat16: the sLSTM runs its products on rounded operands', function()
    local cell = F.define(example('slstm'))
    fused.manual_seed(4)
    local f32 = fused.nn.RNN(8, 16, { cell = cell })
    local bf = fused.nn.RNN(8, 16, { cell = cell, compute = 'bfloat16' })
    for name, p in f32:named_parameters() do bf[name]:copy(p) end
    local xs = fused.randn({ 5, 4, 8 })
    local a, b = f32:forward(xs, nil, nil, nil, nil, { lengths = { 5, 3, 1, 4 } }),
                 bf:forward(xs, nil, nil, nil, nil, { lengths = { 5, 3, 1, 4 } })
    local diff = (a - b):abs():max()
    assert.is_true(diff > 0 and diff < 0.05, 'bfloat16 against float32: ' .. diff)
    bf:zeroGradParameters()
    bf:backward(b:clone():fill_(1))
    assert.is_true(bf.grad.weight_hh_l0:abs():max() > 0)
  end)

  it('a parameter the step never reads is a warning', function()
    local sink, stderr = helper.sink(), io.stderr
    io.stderr = sink
    local ok, e = pcall(F.define, { name = 'unread_param', gates = 1, state = { 'h' },
      params = { 'u', 'v' }, cache_dir = cache .. '.d',
      step = function(gx, gh, s, p) return { h = F.tanh(gx[1] + gh[1] * p.u + s.h) } end })
    io.stderr = stderr
    assert(ok, e)
    assert.are.equal("fused.cell.define: unread_param: warning: parameter 'v' is never read (p.v "
                     .. 'reaches no new state)\n', sink.text())
  end)

  it('the comparisons and where of numbers are numbers; F.* of numbers too', function()
    assert.are.equal(2, F.where(F.lt(1, 2), 2, 3))
    assert.are.equal(3, F.where(F.gt(1, 2), 2, 3))
    assert.are.equal(3, F.where(F.eq(0 / 0, 0 / 0), 2, 3))
    assert.are.equal(-800, F.logsigmoid(-800))
    assert.is_true(math.abs(F.logsigmoid(0) + math.log(2)) < 1e-15)
    assert.are.equal(0.5, F.stop_gradient(0.5))
  end)
end)
