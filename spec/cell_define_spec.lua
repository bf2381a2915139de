-- fused.cell.define: cells from their equations. The cells of examples/cells/ pass gradcheck
-- through nn.RNN (2 layers, both directions, ragged) and match their equations run on plain
-- tensor ops; the LSTM and GRU as definitions match PyTorch's (spec/golden), the LLTM and the
-- MGU the built-in and the hand-written cell; wrong definitions fail at define, saying so.
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell
local Fn = fused.functional
local close, err = helper.assert_close, helper.assert_error

local cache = os.tmpname()
local o = { dtype = 'float64' }

-- The definition of an example, built into the spec's cache.
local function example(file)
  local def = dofile('examples/cells/' .. file .. '.lua')(F)
  def.cache_dir = cache .. '.d'
  return def
end

-- The same equations over plain tensors: the step of the definition run with these.
local tensor_F = {
  sigmoid = fused.sigmoid, tanh = fused.tanh, relu = fused.relu, elu = fused.elu, exp = fused.exp,
  log = fused.log, abs = fused.abs, sqrt = fused.sqrt, min = fused.minimum, max = fused.maximum,
  softplus = function(x) return fused.maximum(x, 0) + fused.log(1 + fused.exp(-fused.abs(x))) end,
}

-- One layer, forward, every sequence whole: hs, h_n, c_n from matmuls, narrows and the step.
local function reference(def, xs, h0, c0, w_ih, w_hh, b_ih, b_hh)
  local T, H = xs:size(1), h0:size(2)
  local h, c, hs = h0, c0, {}
  for t = 1, T do
    local px = fused.matmul(xs:select(1, t), w_ih:t()) + b_ih
    local ph = fused.matmul(h, w_hh:t()) + b_hh
    local gx, gh = {}, {}
    for k = 1, def.gates do
      gx[k], gh[k] = px:narrow(2, (k - 1) * H + 1, H), ph:narrow(2, (k - 1) * H + 1, H)
    end
    h, c = def.step(gx, gh, h, c)
    hs[t] = h
  end
  return fused.stack(hs, 1), h, c
end

-- A cell of every function, for the ones the examples do not use.
local function all_functions(F)
  return { name = 'all_functions', gates = 3, state = 'h', step = function(gx, gh, h)
    local a = F.softplus(gx[1] + gh[1]) / F.sqrt(1 + F.exp(-F.abs(gx[2])))
    local b = F.log(1 + F.sigmoid(gh[2])) - F.relu(gx[3]) * 0.25 + F.elu(gh[3])
    return F.min(a, h) * 0.5 + F.max(b, -h) * F.tanh(gx[2] - 1.5)
  end }
end

local cells = { 'mgu', 'janet', 'cifg_lstm', 'sru_dense', 'lltm', 'lstm', 'gru' }

describe('fused.cell.define', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  local defs = {}
  for _, file in ipairs(cells) do defs[file] = function() return example(file) end end
  defs.all_functions = function()
    local def = all_functions(F)
    def.cache_dir = cache .. '.d'
    return def
  end

  for _, file in ipairs({ 'mgu', 'janet', 'cifg_lstm', 'sru_dense', 'lltm', 'all_functions' }) do
    it(file .. ': its equations on plain tensors give its outputs, float64 within 1e-10', function()
      local def = defs[file]()
      local cell = F.define(def)
      local ref_def = file == 'all_functions' and all_functions(tensor_F)
                      or dofile('examples/cells/' .. file .. '.lua')(tensor_F)
      fused.manual_seed(11)
      local T, B, I, H, G = 5, 3, 4, 6, def.gates
      local xs, h0 = fused.randn({ T, B, I }, o), fused.randn({ B, H }, o)
      local c0 = cell.has_c and fused.randn({ B, H }, o) or nil
      local w_ih, w_hh = fused.randn({ G * H, I }, o) * 0.5, fused.randn({ G * H, H }, o) * 0.5
      local b_ih, b_hh = fused.randn({ G * H }, o), fused.randn({ G * H }, o)
      local hs, h_n, c_n = Fn.rnn_forward(cell, xs, w_ih, w_hh, b_ih, b_hh, h0, c0)
      local r_hs, r_hn, r_cn = reference(ref_def, xs, h0, c0, w_ih, w_hh, b_ih, b_hh)
      assert.is_true((hs - r_hs):abs():max() <= 1e-10, 'hs')
      assert.is_true((h_n - r_hn):abs():max() <= 1e-10, 'h_n')
      if cell.has_c then assert.is_true((c_n - r_cn):abs():max() <= 1e-10, 'c_n') end
      assert.is_true(r_hs:abs():max() > 0.05, 'a reference of zeros checks nothing')
    end)

    it('gradcheck: ' .. file .. ' through nn.RNN, 2 layers, bidirectional, ragged', function()
      local cell = F.define(defs[file]())
      fused.manual_seed(7)
      local T, B, I, H = 4, 3, 2, 3
      local m = fused.nn.RNN(I, H, { cell = cell, num_layers = 2, bidirectional = true, dtype = 'float64' })
      local lengths = { 2, 4, 1 }
      local inputs = { fused.randn({ T, B, I }, o), fused.randn({ 4, B, H }, o) }
      if cell.has_c then inputs[3] = fused.randn({ 4, B, H }, o) end
      local n_state = #inputs
      for _, p in m:named_parameters() do inputs[#inputs + 1] = p:clone() end
      local ok, worst = fused.gradcheck({
        forward = function(...)
          local args = { ... }
          local i = n_state
          for _, p in m:named_parameters() do i = i + 1; p:copy(args[i]) end
          if cell.has_c then return m:forward(args[1], args[2], args[3], { lengths = lengths }) end
          return m:forward(args[1], args[2], { lengths = lengths })
        end,
        backward = function(_, ...)
          m:zeroGradParameters()
          local g = { m:backward(...) }
          for _, _, grad in m:named_parameters() do g[#g + 1] = grad end
          return unpack(g)
        end,
      }, inputs)
      assert.is_true(ok, worst and worst.message)
    end)
  end

  -- Random expressions of every operation over every leaf (fixed seeds), each cell gradchecked.
  local function random_expression(leaves, depth)
    if depth == 0 or math.random() < 0.25 then
      if math.random() < 0.15 then return math.random(-3, 3) * 0.5 end
      return leaves[math.random(#leaves)]
    end
    local a = random_expression(leaves, depth - 1)
    local b = random_expression(leaves, depth - 1)
    local make = {
      function() return F.sigmoid(a) end, function() return F.tanh(a) end,
      function() return F.elu(a) end, function() return F.softplus(a) end,
      function() return F.abs(a) end, function() return F.relu(a) end, function() return -a end,
      function() return F.exp(F.tanh(a)) end, function() return F.sqrt(1 + F.sigmoid(a)) end,
      function() return F.log(2 + F.tanh(a)) end, function() return a + b end,
      function() return a - b end, function() return a * b end,
      function() return a / (2 + F.sigmoid(b)) end, function() return F.min(a, b) end,
      function() return F.max(a, b) end,
    }
    return make[math.random(#make)]()
  end

  for seed = 1, 4 do
    it('gradcheck: a random cell, seed ' .. seed, function()
      local gates, hc = seed % 3 + 1, seed % 2 == 0
      local stderr = io.stderr
      io.stderr = helper.sink() -- an unused gate's warning
      local made, cell = pcall(F.define, { name = 'random' .. seed, gates = gates, state = hc and 'hc' or 'h',
        cache_dir = cache .. '.d', step = function(gx, gh, h, c)
          math.randomseed(seed)
          local leaves = { h, c } -- c: nil for state 'h', and then overwritten
          for k = 1, gates do leaves[#leaves + 1] = gx[k]; leaves[#leaves + 1] = gh[k] end
          local new_h = F.tanh(random_expression(leaves, 4)) + 0.1 * h
          if hc then return new_h, F.tanh(random_expression(leaves, 3)) + 0.5 * c end
          return new_h
        end })
      io.stderr = stderr
      assert(made, cell)
      fused.manual_seed(seed)
      local T, B, I, H = 3, 2, 2, 3
      local inputs = { fused.randn({ T, B, I }, o), fused.randn({ B, H }, o),
                       fused.randn({ gates * H, I }, o) * 0.5, fused.randn({ gates * H, H }, o) * 0.5,
                       fused.randn({ gates * H }, o) * 0.5, fused.randn({ gates * H }, o) * 0.5 }
      if hc then inputs[7] = fused.randn({ B, H }, o) end
      local opts = { lengths = { 3, 2 } }
      local ok, worst = fused.gradcheck({
        forward = function(xs, h0, w_ih, w_hh, b_ih, b_hh, c0)
          local hs, h_n, c_n, ctx = Fn.rnn_forward(cell, xs, w_ih, w_hh, b_ih, b_hh, h0, c0, opts)
          if hc then return hs, h_n, c_n, ctx end
          return hs, h_n, ctx
        end,
        backward = function(ctx, ...)
          local d_xs, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_h0, d_c0 = Fn.rnn_backward(ctx, ...)
          return d_xs, d_h0, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_c0
        end,
      }, inputs)
      assert.is_true(ok, worst and worst.message)
    end)
  end

  it('the MGU as a definition gives the hand-written one\'s outputs and gradients, float64 within 1e-12', function()
    local defined = F.define(example('mgu'))
    local by_hand = fused.ext.cell { name = 'mgu', sources = { 'examples/custom_cell/mgu.c' }, gates = 2,
                                     state = 'h', saved = 6, d_ih = 3, cache_dir = cache .. '.d' }
    fused.manual_seed(3)
    local T, B, I, H = 5, 4, 3, 6
    local xs, h0 = fused.randn({ T, B, I }, o), fused.randn({ B, H }, o)
    local w_ih, w_hh = fused.randn({ 2 * H, I }, o) * 0.5, fused.randn({ 2 * H, H }, o) * 0.5
    local b_ih, b_hh = fused.randn({ 2 * H }, o), fused.randn({ 2 * H }, o)
    local d_hs, d_hn = fused.randn({ T, B, H }, o), fused.randn({ B, H }, o)
    for _, reverse in ipairs({ false, true }) do
      local opts = { lengths = { 5, 2, 4, 1 }, reverse = reverse }
      local a = { Fn.rnn_forward(defined, xs, w_ih, w_hh, b_ih, b_hh, h0, nil, opts) }
      local b = { Fn.rnn_forward(by_hand, xs, w_ih, w_hh, b_ih, b_hh, h0, nil, opts) }
      for i = 1, 2 do assert.is_true((a[i] - b[i]):abs():max() <= 1e-12, 'output ' .. i) end
      local ga, gb = { Fn.rnn_backward(a[4], d_hs, d_hn) }, { Fn.rnn_backward(b[4], d_hs, d_hn) }
      for i = 1, 6 do assert.is_true((ga[i] - gb[i]):abs():max() <= 1e-12, 'gradient ' .. i) end
    end
  end)

  it('the LLTM as a definition gives the built-in LLTM\'s outputs and gradients, float64 within 1e-12', function()
    local cell = F.define(example('lltm'))
    fused.manual_seed(3)
    local T, B, I, H = 5, 4, 3, 6
    local xs, h0, c0 = fused.randn({ T, B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
    local w_ih, w_hh = fused.randn({ 3 * H, I }, o) * 0.5, fused.randn({ 3 * H, H }, o) * 0.5
    local b, zero = fused.randn({ 3 * H }, o), fused.zeros({ 3 * H }, o)
    local d_hs, d_hn, d_cn = fused.randn({ T, B, H }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
    local opts = { lengths = { 5, 2, 4, 1 } }
    local ours = { Fn.rnn_forward('lltm', xs, w_ih, w_hh, b, nil, h0, c0, opts) }
    local defined = { Fn.rnn_forward(cell, xs, w_ih, w_hh, b, zero, h0, c0, opts) }
    for i = 1, 3 do assert.is_true((ours[i] - defined[i]):abs():max() <= 1e-12, 'output ' .. i) end
    local g1, g2 = { Fn.rnn_backward(ours[4], d_hs, d_hn, d_cn) }, { Fn.rnn_backward(defined[4], d_hs, d_hn, d_cn) }
    for _, i in ipairs({ 1, 2, 3, 4, 6, 7 }) do
      assert.is_true((g1[i] - g2[i]):abs():max() <= 1e-12, 'gradient ' .. i)
    end
  end)

  -- LSTM and GRU written as definitions against PyTorch's (as spec/rnn_seq_spec.lua does).
  for _, class in ipairs({ 'LSTM', 'GRU' }) do
    for _, case in ipairs({ 'short', 'stacked', 'bidirectional', 'lengths' }) do
      for _, dtype in ipairs({ 'float64', 'float32' }) do
        it(string.format('%s as a definition matches PyTorch on %s in %s', class, case, dtype), function()
          local path = class:lower() .. '_seq/' .. case
          local config, g = helper.golden_config(path), helper.golden_case(path, dtype)
          local cell = F.define(example(class:lower()))
          local m = fused.nn.RNN(config.input_size, config.hidden_size, { cell = cell,
            num_layers = config.num_layers, bidirectional = config.bidirectional, dtype = dtype })
          for name, p in m:named_parameters() do p:copy(g[name]) end
          local function check(t, name) close(t, g[name], helper.golden_tolerance(path, name, dtype), name) end
          local lstm = class == 'LSTM'
          local hs, h_n, c_n
          if lstm then hs, h_n, c_n = m:forward(g.xs, g.h0, g.c0, { lengths = config.lengths })
          else hs, h_n = m:forward(g.xs, g.h0, { lengths = config.lengths }) end
          check(hs, 'hs'); check(h_n, 'h_n')
          if lstm then check(c_n, 'c_n') end
          local d_xs, d_h0, d_c0
          if lstm then d_xs, d_h0, d_c0 = m:backward(g.r, g.s_h, g.s_c)
          else d_xs, d_h0 = m:backward(g.r, g.s_h) end
          check(d_xs, 'd_xs'); check(d_h0, 'd_h0')
          if lstm then check(d_c0, 'd_c0') end
          for name, _, grad in m:named_parameters() do check(grad, 'd_' .. name) end
        end)
      end
    end
  end

  it('a second definition of a cell reuses its build; F.source is the generated C', function()
    local lines = {}
    local print_ = print
    local def = example('janet')
    F.define(def)
    def.verbose = true
    _G.print = function(s) lines[#lines + 1] = s end
    local ok, cell = pcall(F.define, def)
    _G.print = print_
    assert(ok, cell)
    local said = table.concat(lines, '\n')
    assert.is_truthy(said:find('reusing', 1, true), said)
    assert.is_falsy(said:find('compiling', 1, true), said)
    local source = F.source(cell)
    assert.is_truthy(source:find('FUSED_CELL_FORWARD(cell_janet', 1, true))
    assert.is_truthy(source:find('FUSED_CELL_BACKWARD(cell_janet', 1, true))
    err(function() F.source({}) end,
        "fused.cell.source: argument 'cell' expected a cell from fused.cell.define, got table")
  end)

  it('merges common subexpressions and folds constants', function()
    local cell = F.define { name = 'folded', gates = 1, state = 'h', cache_dir = cache .. '.d',
      step = function(gx, gh, h)
        local a = F.sigmoid(gx[1] + gh[1])
        local b = F.sigmoid(gh[1] + gx[1]) -- the same node as a
        return a * b * (2 * 3 - 5) + h * F.exp(0) + 0
      end }
    local source = F.source(cell)
    local _, sigmoids = source:gsub('sigmoid_of%(', '')
    assert.are.equal(1, sigmoids)
    assert.is_falsy(source:find('vsplat(6)', 1, true) or source:find('vsplat(5)', 1, true))
  end)

  it('rewrites log(1 + exp(x)) as softplus, which does not overflow', function()
    local cell = F.define { name = 'log_exp', gates = 1, state = 'h', cache_dir = cache .. '.d',
      step = function(gx, gh, h) return F.log(F.exp(gx[1] + gh[1]) + 1) + h end }
    local source = F.source(cell)
    assert.is_truthy(source:find('FUSED_SOFTPLUS(', 1, true))
    assert.is_falsy(source:find('FUSED_LANEWISE(log,', 1, true))
    local xs = fused.full({ 1, 1, 1 }, 1000, o)
    local hs = Fn.rnn_forward(cell, xs, fused.ones({ 1, 1 }, o), fused.zeros({ 1, 1 }, o),
                              fused.zeros({ 1 }, o), fused.zeros({ 1 }, o), fused.zeros({ 1, 1 }, o))
    assert.are.equal(1000, hs:item())
  end)

  describe('a wrong definition', function()
    local function define(state, step, gates)
      return function()
        F.define { name = 'bad', gates = gates or 2, state = state, step = step, cache_dir = cache .. '.d' }
      end
    end
    it('says what the step returned and what was expected', function()
      err(define('h', function() end),
          "fused.cell.define: bad: step returned nothing; state 'h' expects 1: new h")
      err(define('hc', function(gx, gh, h, c) return h end),
          "fused.cell.define: bad: step returned 1 result; state 'hc' expects 2: new h, new c")
      err(define('h', function() return 0.5 end),
          'fused.cell.define: bad: step result 1 (new h) is the number 0.5; a state must be an expression of gx, gh, h')
      err(define('hc', function(gx, gh, h, c) return h, F.tanh(0) end),
          'step result 2 (new c) is the number 0; a state must be an expression of gx, gh, h, c')
      err(define('h', function() return 'h' end),
          'step result 1 (new h) is a string; expected an expression of gx, gh, h')
    end)
    it('names a gate out of range and an unknown function, at the line of the step', function()
      err(define('h', function(gx, gh, h) return h * gx[3] end),
          'fused.cell.define: bad: ', 'cell_define_spec.lua:', 'gx[3]: no such gate; gates = 2 (gx[1] .. gx[2])')
      err(define('h', function(gx, gh, h) return F.softmax(gx[1]) end),
          'fused.cell.define: bad: ', 'cell_define_spec.lua:', "fused.cell has no 'softmax'")
      err(define('h', function(gx, gh, h) return F.tanh('x') end),
          "fused.cell.tanh: argument 1 expected a symbol or a number, got string")
      err(define('h', function(gx, gh, h) return F.elu(gx[1], 0.5) end), -- alpha is 1
          'fused.cell.elu: expected one argument, got 2')
      err(define('h', function(gx, gh, h) gx[3] = h end), 'gx[3]: no such gate; gates = 2')
    end)
    it('gives gx and gh as lists of every gate: #, ipairs and unpack see them', function()
      err(define('h', function(gx, gh, h)
        local n = 0
        for _ in ipairs(gh) do n = n + 1 end
        error(string.format('seen %d %d %d', #gx, n, select('#', unpack(gx))))
      end, 3), 'seen 3 3 3')
    end)
    it('warns of a gate that nothing reads', function()
      local sink, stderr = helper.sink(), io.stderr
      io.stderr = sink
      local ok, e = pcall(define('h', function(gx, gh, h) return F.tanh(gx[1] + gh[1] + h) end, 3))
      io.stderr = stderr
      assert(ok, e)
      assert.are.equal('fused.cell.define: bad: warning: gate 2 is unused (neither gx[2] nor gh[2] '
                       .. 'reaches the new state)\nfused.cell.define: bad: warning: gate 3 is unused '
                       .. '(neither gx[3] nor gh[3] reaches the new state)\n', sink.text())
    end)
    it('checks its options', function()
      err(function() F.define { name = 'a b', gates = 1, state = 'h', step = print } end,
          "fused.cell.define: option 'name' expected a C name (letters, digits, _), got \"a b\"")
      err(define('x', function() end), "fused.cell.define: bad: option 'state' expected 'h', 'hc' or a list of names ({'h', 'c', 'n', 'm'}), got x")
      err(define('h', function() end, 0), "fused.cell.define: bad: option 'gates' expected an integer in 1..64, got 0")
      err(define('h', 'step'), "fused.cell.define: bad: option 'step' expected a function, got string")
      err(function() F.define { name = 'a', gates = 1, state = 'h', step = print, gate = 2 } end,
          "fused.cell.define: unknown option 'gate'")
    end)
  end)
end)
