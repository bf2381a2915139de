-- User-defined linear cells (issue 35) beyond the five examples, against the PyTorch float64
-- references of spec/data/linear_user (gen.py beside them, written from the cells' equations):
-- three coupled states, per-unit parameters, x and reset in the coefficients, a reset that does
-- more than restart, F.where on a state-free condition, an output computed from the new
-- states; compute = 'bfloat16' against a reference whose input GEMM (and its backward) takes
-- operands rounded to bfloat16. Every result (outputs, final states, every gradient) within
-- 1e-10 in float64 and by the golden rule in float32, on every CPU vector path and the emulated
-- CUDA device; gradcheck in float64 of every parameter, initial state and x; the define-time
-- check: steps not linear in a state refused naming the state and the term, linear but unusual
-- forms accepted and computed as written.
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell
local err = helper.assert_error
local ref = require 'spec.cell_reference'
local json = require 'fused.json'

local cache = os.tmpname()
local o = { dtype = 'float64' }
local DATA = 'spec/data/linear_user/'

-- The cells of gen.py, as the user writes them.
local DEFS = {
  coupled3 = { gates = 3, state = { 'a', 'b', 'c' }, params = { 'w', 'v' }, output = { 'a', 'c' },
               step = function(gx, s, p, x, reset)
    local f, z, q = F.sigmoid(gx[1]), F.tanh(gx[2]), F.sigmoid(gx[3])
    return { a = f * s.a + (1 - f) * p.w * s.b + z * x,
             b = -q * s.b + s.c / 2 + reset * p.v + gx[3],
             c = (1 - reset) * F.exp(-F.softplus(p.v)) * s.c + gx[3] * s.a / 2
                 - s.b / (2 + F.exp(gx[1])) + reset * x }
  end },
  pair_out = { gates = 2, state = { 'h', 'm' }, params = { 'decay' }, output = { 'y' },
               step = function(gx, s, p, _, reset)
    local d = F.exp(-F.exp(p.decay))
    local h = d * s.h + (1 - d) * gx[1] - s.m / 4
    local m = F.where(F.ge(gx[2], 0), s.m, s.h / 2) + reset * gx[1]
    return { h = h, m = m, y = F.tanh(h) * F.sigmoid(gx[2]) + m * p.decay }
  end },
}

local defined = {}
local function cell(name)
  if not defined[name] then
    local d = { name = name, linear = true, cache_dir = cache .. '.d' }
    for k, v in pairs(DEFS[name]) do d[k] = v end
    defined[name] = F.define(d)
  end
  return defined[name]
end

local function run_case(case, dtype, device)
  local c = ref.config(DATA, case)
  local compute = c.compute ~= json.null and c.compute or nil
  local m = fused.nn.RNN(c.I, c.H, { cell = cell(c.cell), dtype = dtype, compute = compute,
                                     num_layers = c.num_layers, bidirectional = c.bidirectional })
  for name, p in m:named_parameters() do p:copy(ref.load(DATA, case, name)) end
  if device then m:cuda() end
  local get = ref.getter(DATA, case, dtype, device)
  return ref.run(m, c, get, function(s)
    return ref.exists(DATA, case, s .. '0') and get(s .. '0') or nil
  end), c
end

local function check_case(case, dtype, device, what)
  local got, c = run_case(case, dtype, device)
  local checked = ref.compare(DATA, case, c, got, dtype, what)
  -- hs, d_xs, the weight's and bias's gradients, each parameter's, a final state per state
  assert.is_true(checked >= 4 + #c.params + #c.states, case .. ': ' .. checked .. ' checked')
end

describe('user-defined linear cells', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  ref.every_path({ 'coupled3_ragged_resets', 'bidir_coupled3_h17', 'bidir_pair_out_2layers',
                   'pair_out_h259' }, check_case)

  for _, case in ipairs({ 'bf16_coupled3', 'bf16_pair_out' }) do
    it(case .. ": compute = 'bfloat16' by the golden rule on every CPU path", function()
      for _, path in ipairs(helper.runnable_cpu_paths()) do
        helper.under_cpu_capability(path, function() check_case(case, 'float32', false, path) end)
      end
    end)
    helper.gpu_it(case .. ": compute = 'bfloat16' by the golden rule on the CUDA device",
                  function() check_case(case, 'float32', 'cuda', 'cuda') end)
  end

  it('gradcheck: coupled3 (3 states, parameters, x, reset) bidirectional, ragged, resets',
     function()
    fused.manual_seed(31)
    local T, B, H = 5, 3, 3
    local m = fused.nn.RNN(H, H, { cell = cell('coupled3'), bidirectional = true,
                                   dtype = 'float64' })
    local resets = fused.zeros({ T, B }, { dtype = 'bool' })
    resets[1][1], resets[3][1], resets[2][2], resets[4][3] = true, true, true, true
    local inputs = { fused.randn({ T, B, H }, o) }
    for i = 1, 3 do inputs[i + 1] = fused.randn({ 2, B, H }, o) end
    local ok, worst = ref.gradcheck(m, inputs, { resets = resets, lengths = { 5, 3, 4 } })
    assert.is_true(ok, worst and worst.message)
  end)

  it('gradcheck: pair_out (a computed output) 2 layers bidirectional, ragged, resets', function()
    fused.manual_seed(32)
    local T, B, I, H = 4, 2, 3, 2
    local m = fused.nn.RNN(I, H, { cell = cell('pair_out'), num_layers = 2, bidirectional = true,
                                   dtype = 'float64' })
    local resets = fused.zeros({ T, B }, { dtype = 'bool' })
    resets[3][1], resets[2][2] = true, true
    local inputs = { fused.randn({ T, B, I }, o), fused.randn({ 4, B, H }, o),
                     fused.randn({ 4, B, H }, o) }
    local ok, worst = ref.gradcheck(m, inputs, { resets = resets, lengths = { 4, 3 } })
    assert.is_true(ok, worst and worst.message)
  end)

  it('refuses each step not linear in a state, naming the state and the term', function()
    local function refused(states, step, term, bad)
      local stderr = io.stderr
      io.stderr = helper.sink() -- the unused gates' and parameter's warnings
      local ok, e = pcall(F.define, { name = 'not_linear', gates = 2, state = states, linear = true,
                                      params = { 'w' }, cache_dir = cache .. '.d', step = step })
      io.stderr = stderr
      assert.is_false(ok, term)
      assert.matches("fused.cell.define: not_linear: state '" .. bad .. "' is not linear in the "
                     .. 'states (a linear cell', e, 1, true)
      assert.matches('the term ' .. term, e, 1, true)
    end
    local function one(body) return function(gx, s, p) return { h = body(gx, s, p) } end end
    refused({ 'h' }, one(function(gx, s) return s.h * s.h + gx[1] end), '(s.h * s.h)', 'h')
    refused({ 'h' }, one(function(gx, s) return F.sigmoid(s.h) * gx[1] end), 'F.sigmoid(s.h)', 'h')
    refused({ 'h' }, one(function(gx, s) return F.tanh(s.h) end), 'F.tanh(s.h)', 'h')
    refused({ 'h' }, one(function(gx, s) return F.exp(s.h) + gx[2] end), 'F.exp(s.h)', 'h')
    refused({ 'h' }, one(function(gx, s) return gx[1] / (1 + s.h) end), '(gx[1] / (1 + s.h))', 'h')
    refused({ 'h' }, one(function(gx, s) return F.max(s.h, gx[1]) end), 'F.max(s.h, gx[1])', 'h')
    refused({ 'h' }, one(function(gx, s) return F.abs(s.h) * gx[2] end), 'F.abs(s.h)', 'h')
    refused({ 'h' }, one(function(gx, s, p) return p.w * s.h * (s.h - gx[1]) end),
            '((p.w * s.h) * (s.h - gx[1]))', 'h')
    refused({ 'a', 'b' }, function(gx, s) return { a = s.a * s.b + gx[1], b = s.b } end,
            '(s.a * s.b)', 'a')
    refused({ 'a', 'b' }, function(gx, s) return { a = s.a, b = F.sigmoid(s.a) * s.b } end,
            'F.sigmoid(s.a)', 'b')
    refused({ 'a', 'b' }, function(gx, s)
      return { a = s.a, b = F.where(F.lt(s.a, gx[1]), s.b, gx[2]) }
    end, 'F.where(F.lt(s.a, gx[1]), s.b, gx[2])', 'b')
  end)

  -- Forms linear in the states that must be accepted, each against the recurrence written out
  -- over tensors: new(gx1, gx2, h, reset) for one state.
  it('accepts linear forms: a constant factor, minus a state, a where, (1 - gate), reset',
     function()
    local FORMS = {
      { function(gx, s) return 0.5 * s.h + gx[1] - gx[2] end,
        function(g1, g2, h) return h * 0.5 + g1 - g2 end },
      { function(gx, s) return -s.h + gx[1] * gx[2] end,
        function(g1, g2, h) return -h + g1:mul(g2) end },
      { function(gx, s) return 0 - s.h / (1 + F.exp(gx[1])) + gx[2] end,
        function(g1, g2, h) return -h:div(g1:exp() + 1) + g2 end },
      { function(gx, s) return s.h * (1 - F.sigmoid(gx[1])) + gx[2] end,
        function(g1, g2, h) return h:mul(-g1:sigmoid() + 1) + g2 end },
      { function(gx, s) return F.where(F.ge(gx[1], 0), s.h, 2 * s.h - gx[2]) end,
        function(g1, g2, h) return fused.where(g1:ge(0), h, h * 2 - g2) end },
      { function(gx, s, _, _, reset) return (1 + reset) * s.h * F.tanh(gx[1]) + gx[2] end,
        function(g1, g2, h, r) return h:mul(g1:tanh()) * (1 + r) + g2 end },
    }
    fused.manual_seed(33)
    local T, B, H = 4, 2, 3
    local xs, h0 = fused.randn({ T, B, H }, o), fused.randn({ B, H }, o)
    local resets = fused.zeros({ T, B }, { dtype = 'bool' })
    resets[3][2] = true
    for k, form in ipairs(FORMS) do
      local c = F.define { name = 'form' .. k, gates = 2, state = { 'h' }, linear = true,
                           cache_dir = cache .. '.d', step = function(gx, s, p, x, reset)
        return { h = form[1](gx, s, p, x, reset) }
      end }
      local m = fused.nn.RNN(H, H, { cell = c, dtype = 'float64' })
      local hs = m:forward(xs, h0, { resets = resets })
      local gx = fused.addmm(m.bias_ih_l0, xs:view(T * B, H), m.weight_ih_l0:t()):view(T, B, 2 * H)
      local h = h0:clone()
      for t = 1, T do
        local r = fused.zeros({ B, 1 }, o)
        for b = 1, B do
          if resets[t][b] then h[b]:copy(h0[b]); r[b][1] = 1 end
        end
        h = form[2](gx[t]:narrow(2, 1, H), gx[t]:narrow(2, H + 1, H), h, r:expand(B, H))
        helper.assert_close(hs[t], h, 1e-14, 'form ' .. k .. ' step ' .. t)
      end
    end
  end)
end)
