-- The CPU kernels' vector paths (c/cpu/capability.c): fused.config() says which runs, and every
-- path this CPU runs gives the golden LLTM results of the baseline one within float32 rounding,
-- and the LSTM's and GRU's within rounding in both dtypes.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

local runnable = helper.runnable_cpu_paths
local under = helper.under_cpu_capability

local function cell_results(case)
  local g = {}
  for _, name in ipairs({ 'x', 'h', 'c', 'W', 'b', 'grad_h', 'grad_c' }) do
    g[name] = helper.load_golden('lltm_cell/' .. case, name, 'float32')
  end
  local H = g.W:size(1) / 3
  local cell = fused.nn.LLTMCell(g.W:size(2) - H, H)
  cell.weight:copy(g.W)
  cell.bias:copy(g.b)
  local out = { cell:forward(g.x, g.h, g.c) }
  for _, t in ipairs({ cell:backward(g.grad_h, g.grad_c) }) do out[#out + 1] = t end
  out[#out + 1], out[#out + 2] = cell.grad.weight, cell.grad.bias
  for i, t in ipairs(out) do out[i] = t:clone() end
  return out
end

local function seq_results(case)
  local g = {}
  for _, name in ipairs({ 'xs', 'h0', 'c0', 'W', 'b', 'r', 's' }) do
    g[name] = helper.load_golden('lltm_seq/' .. case, name, 'float32')
  end
  local rnn = fused.nn.LLTM(g.xs:size(3), g.h0:size(2))
  rnn.weight:copy(g.W)
  rnn.bias:copy(g.b)
  local out = { rnn:forward(g.xs, g.h0, g.c0) }
  for _, t in ipairs({ rnn:backward(g.r, nil, g.s) }) do out[#out + 1] = t end
  out[#out + 1], out[#out + 2] = rnn.grad.weight, rnn.grad.bias
  for i, t in ipairs(out) do out[i] = t:clone() end
  return out
end

-- nn.LSTM or nn.GRU (the rows of c/cpu/generic/rnn.h) forward and backward, both directions
-- over a ragged batch; H = 19 gives every path whole vectors and a partial one.
local function gated_results(class, dtype)
  fused.manual_seed(3)
  local o = { dtype = dtype }
  local m = fused.nn[class](7, 19, { bidirectional = true, dtype = dtype })
  local xs, d_hs = fused.randn({ 6, 5, 7 }, o), fused.randn({ 6, 5, 38 }, o)
  local lengths = { 6, 2, 5, 1, 6 }
  local out
  if class == 'LSTM' then out = { m:forward(xs, nil, nil, { lengths = lengths }) }
  else out = { m:forward(xs, nil, { lengths = lengths }) } end
  for _, t in ipairs({ m:backward(d_hs) }) do out[#out + 1] = t end
  for _, _, grad in m:named_parameters() do out[#out + 1] = grad end
  for i, t in ipairs(out) do out[i] = t:clone() end
  return out
end

-- With FMA or without, the paths round some operations differently in the last bit: measured
-- up to 6.4e-7 (about 5 float32 ulp, on the tiny cell's d_c) with AVX2 against the baseline,
-- a fifth of the tightest golden bound (1e-5).
local ROUNDING = 2e-6
-- In float64 the LSTM and GRU differ by 2.2e-16 (measured).
local ROUNDING_FLOAT64 = 1e-13

-- Asserts that results() under every runnable path is within bound of its default result;
-- what names the case in the message.
local function agrees_with_default(what, bound, results)
  local base = under('default', results)
  for _, path in ipairs(runnable()) do
    local got = under(path, results)
    for i = 1, #base do
      local e = helper.rel_error(got[i], base[i])
      assert(e <= bound, string.format('%s output %d under %s: %.3g from default', what, i, path,
                                       e))
    end
  end
end

describe('CPU vector paths', function()
  it('fused.config() names the path, its width, the threads and the BLAS', function()
    local c = fused.config()
    local widths = { avx512 = 512, avx2 = 256, default = 128 }
    assert.are.equal(widths[c.cpu_capability], c.vector_bits)
    local forced = os.getenv('FUSED_CPU_CAPABILITY')
    if forced and forced ~= '' then assert.are.equal(forced, c.cpu_capability) end
    assert.are.equal(fused.get_num_threads(), c.threads)
    assert.is_string(c.blas)
    assert.is_string(c.blas_core)
    assert.is_boolean(c.cuda)
    assert.is_nil(tostring(c):find('\n'))
    assert.truthy(tostring(c):find(c.cpu_capability, 1, true))
  end)

  it('runs the baseline everywhere and refuses an unknown path by name', function()
    assert.are.equal('default', runnable()[#runnable()])
    err(function() fused.set_cpu_capability('sse9') end, "expected avx512, avx2 or default, got 'sse9'")
    err(function() fused.set_cpu_capability(2) end, "argument 'name' expected a string")
  end)

  for _, kind in ipairs({ { 'lltm_cell', cell_results, { 'tiny', 'odd', 'tutorial', 'tall', 'saturated' } },
                          { 'lltm_seq', seq_results, { 'short', 'long' } } }) do
    local what, results, cases = kind[1], kind[2], kind[3]
    it(what .. ': every path gives the baseline results within float32 rounding', function()
      for _, case in ipairs(cases) do
        agrees_with_default(what .. ' ' .. case, ROUNDING, function() return results(case) end)
      end
    end)
  end

  it('LSTM and GRU: every path gives the baseline results within rounding', function()
    for _, class in ipairs({ 'LSTM', 'GRU' }) do
      for _, dtype in ipairs({ 'float32', 'float64' }) do
        local bound = dtype == 'float64' and ROUNDING_FLOAT64 or ROUNDING
        agrees_with_default(class .. ' ' .. dtype, bound,
                            function() return gated_results(class, dtype) end)
      end
    end
  end)

  it('every path keeps NaN in the activations', function()
    local x = fused.tensor({ 0 / 0, -1, 0, 1, 0 / 0, 2, -3, 0 / 0, 4 }, { dtype = 'float32' })
    for _, path in ipairs(runnable()) do
      under(path, function()
        for _, op in ipairs({ 'tanh', 'sigmoid', 'elu', 'relu' }) do
          local y = fused[op](x):totable()
          for _, i in ipairs({ 1, 5, 8 }) do
            local v = y[i]
            assert(v ~= v, string.format('%s(NaN) under %s gave %s', op, path, tostring(v)))
          end
        end
      end)
    end
  end)
end)
