-- The LLTM over a sequence: the fused nn.LLTM and nn.Recurrent(nn.LLTMCell) against the golden
-- vectors (loss L = Σ_t <h_t, r_t> + <c_T, s>, so d_hs = r, d_cT = s), against each other,
-- against numeric gradients; accumulation; nil states; bad input.
local helper = require 'spec.helper'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error

local function golden(case, dtype)
  local g = {}
  for _, name in ipairs({ 'xs', 'h0', 'c0', 'W', 'b', 'r', 's', 'hs', 'c_T', 'd_xs', 'd_h0',
                          'd_c0', 'd_W', 'd_b' }) do
    g[name] = helper.load_golden('lltm_seq/' .. case, name, dtype)
  end
  return g
end

-- nn.LLTM or nn.Recurrent(nn.LLTMCell) holding W and b.
local MAKERS = {
  LLTM = function(I, H, dtype) return fused.nn.LLTM(I, H, { dtype = dtype }) end,
  ['Recurrent(LLTMCell)'] = function(I, H, dtype)
    return fused.nn.Recurrent(fused.nn.LLTMCell(I, H, { dtype = dtype }))
  end,
}
local function rnn_with(kind, W, b)
  local H = W:size(1) / 3
  local rnn = MAKERS[kind](W:size(2) - H, H, W.dtype)
  local params = rnn:parameters()
  params[1]:copy(W)
  params[2]:copy(b)
  return rnn
end

describe('LLTM sequence', function()
  for _, dtype in ipairs({ 'float64', 'float32' }) do
    for _, case in ipairs({ 'short', 'long' }) do
      for kind in pairs(MAKERS) do
        it(string.format('%s matches golden %s in %s', kind, case, dtype), function()
          local g = golden(case, dtype)
          local function tol(name) return helper.golden_tolerance('lltm_seq/' .. case, name, dtype) end
          local rnn = rnn_with(kind, g.W, g.b)
          local hs, h_T, c_T = rnn:forward(g.xs, g.h0, g.c0)
          close(hs, g.hs, tol('hs'), 'hs')
          close(h_T, g.hs:select(1, g.hs:size(1)), tol('hs'), 'h_T')
          close(c_T, g.c_T, tol('c_T'), 'c_T')
          local d_xs, d_h0, d_c0 = rnn:backward(g.r, nil, g.s)
          close(d_xs, g.d_xs, tol('d_xs'), 'd_xs')
          close(d_h0, g.d_h0, tol('d_h0'), 'd_h0')
          close(d_c0, g.d_c0, tol('d_c0'), 'd_c0')
          local _, grads = rnn:parameters()
          close(grads[1], g.d_W, tol('d_W'), 'gradWeight')
          close(grads[2], g.d_b, tol('d_b'), 'gradBias')
        end)
      end
    end
  end

  it('fused and unrolled agree with nil states, a gradient at h_T, and B, I or H = 1', function()
    fused.manual_seed(3)
    for _, s in ipairs({ { 1, 1, 1, 1 }, { 3, 1, 2, 5 }, { 4, 5, 1, 3 }, { 2, 3, 4, 1 },
                         { 6, 7, 5, 9 } }) do
      local T, B, I, H = s[1], s[2], s[3], s[4]
      local what = string.format('(T %d, B %d, I %d, H %d) ', T, B, I, H)
      local o = { dtype = 'float64' }
      local fast = fused.nn.LLTM(I, H, o)
      local slow = rnn_with('Recurrent(LLTMCell)', fast.weight, fast.bias)
      local xs, d_hs = fused.randn({ T, B, I }, o), fused.randn({ T, B, H }, o)
      local d_hT = fused.randn({ B, H }, o)
      local a, b = { fast:forward(xs) }, { slow:forward(xs) }
      for i, name in ipairs({ 'hs', 'h_T', 'c_T' }) do close(a[i], b[i], 1e-12, what .. name) end
      a, b = { fast:backward(d_hs, d_hT) }, { slow:backward(d_hs, d_hT) }
      for i, name in ipairs({ 'd_xs', 'd_h0', 'd_c0' }) do
        close(a[i], b[i], 1e-12, what .. name)
      end
      close(fast.grad.weight, slow.cell.grad.weight, 1e-12, what .. 'gradWeight')
      close(fast.grad.bias, slow.cell.grad.bias, 1e-12, what .. 'gradBias')
    end
  end)

  it('passes gradcheck, fused and unrolled', function()
    fused.manual_seed(4)
    local o = { dtype = 'float64' }
    local xs = fused.randn({ 3, 2, 3 }, o)
    local h0, c0 = fused.randn({ 2, 4 }, o), fused.randn({ 2, 4 }, o)
    local W, b = fused.randn({ 12, 7 }, o) * 0.5, fused.randn({ 12 }, o) * 0.5
    for kind in pairs(MAKERS) do
      local op = {
        forward = function(xs_, W_, b_, h0_, c0_)
          local rnn = rnn_with(kind, W_, b_)
          local hs, _, c_T = rnn:forward(xs_, h0_, c0_)
          return hs, c_T, rnn
        end,
        backward = function(rnn, d_hs, d_cT)
          local d_xs, d_h0, d_c0 = rnn:backward(d_hs, nil, d_cT)
          local _, grads = rnn:parameters()
          return d_xs, grads[1], grads[2], d_h0, d_c0
        end,
      }
      local ok, worst = fused.gradcheck(op, { xs, W, b, h0, c0 })
      assert(ok, kind .. ' ' .. worst.message)
    end
  end)

  it('backward adds into the parameter gradients', function()
    local g = golden('short', 'float64')
    for kind in pairs(MAKERS) do
      local rnn = rnn_with(kind, g.W, g.b)
      rnn:forward(g.xs, g.h0, g.c0)
      rnn:backward(g.r, nil, g.s)
      rnn:forward(g.xs, g.h0, g.c0)
      local d_xs = rnn:backward(g.r, nil, g.s)
      close(d_xs, g.d_xs, 1e-10, kind .. ' d_xs of a second forward and backward')
      local _, grads = rnn:parameters()
      close(grads[1], g.d_W * 2, 1e-10, kind .. ' gradWeight after two backwards')
      close(grads[2], g.d_b * 2, 1e-10, kind .. ' gradBias after two backwards')
    end
  end)

  describe('NaN', function()
    local nan_mask = helper.nan_mask
    local function with_nan(t, k) return helper.with_element(t, k, 0 / 0) end

    for _, dtype in ipairs({ 'float32', 'float64' }) do
      -- T 3, B 2, I 2, H 3: the NaN goes into step 2 of xs, h0, c0 or a candidate row of W.
      for _, case in ipairs({ { 'xs', 5 }, { 'h0', 4 }, { 'c0', 1 }, { 'W', 6 * 5 + 2 } }) do
        it(string.format('in %s gives NaN where the unrolled composed cell has it, in %s', case[1], dtype), function()
          fused.manual_seed(6)
          local o = { dtype = dtype }
          local v = { xs = fused.randn({ 3, 2, 2 }, o), h0 = fused.randn({ 2, 3 }, o),
                      c0 = fused.randn({ 2, 3 }, o), W = fused.randn({ 9, 5 }, o), b = fused.randn({ 9 }, o) }
          v[case[1]] = with_nan(v[case[1]], case[2])
          local fast = rnn_with('LLTM', v.W, v.b)
          local slow = fused.nn.Recurrent(fused.nn.LLTMCellComposed(2, 3, o))
          local params = slow:parameters()
          params[1]:copy(v.W)
          params[2]:copy(v.b)
          local d_hs, d_T = fused.ones({ 3, 2, 3 }, o), fused.ones({ 2, 3 }, o)
          local a = { fast:forward(v.xs, v.h0, v.c0) }
          local b = { slow:forward(v.xs, v.h0, v.c0) }
          assert(nan_mask(a[1]):find('1'), 'no NaN in hs')
          for _, t in ipairs({ fast:backward(d_hs, d_T, d_T) }) do a[#a + 1] = t end
          for _, t in ipairs({ slow:backward(d_hs, d_T, d_T) }) do b[#b + 1] = t end
          local _, ga = fast:parameters()
          local _, gb = slow:parameters()
          a[#a + 1], a[#a + 2], b[#b + 1], b[#b + 2] = ga[1], ga[2], gb[1], gb[2]
          for i, name in ipairs({ 'hs', 'h_T', 'c_T', 'd_xs', 'd_h0', 'd_c0', 'gradWeight', 'gradBias' }) do
            assert.are.equal(nan_mask(b[i]), nan_mask(a[i]), name)
          end
        end)
      end
    end
  end)

  describe('bad input', function()
    local o = { dtype = 'float64' }
    local rnn = fused.nn.LLTM(3, 4, o)
    local xs = fused.randn({ 5, 2, 3 }, o)

    it('xs of the wrong rank or size, states of another batch or dtype', function()
      err(function() rnn:forward(xs:select(1, 1)) end, "LLTM:forward: argument 'xs'", 'T x B x 3',
          'got [2, 3]')
      err(function() rnn:forward(fused.randn({ 5, 2, 4 }, o)) end, "LLTM:forward: argument 'xs'",
          'T x B x 3', 'input_size 3', 'got [5, 2, 4]')
      err(function() rnn:forward(xs, fused.zeros({ 3, 4 }, o)) end, "LLTM:forward: argument 'h0'",
          '[2, 4]', 'got [3, 4]')
      err(function() rnn:forward(xs, nil, fused.zeros({ 2, 4 })) end, "LLTM:forward: argument 'c0'",
          'float64', 'float32')
      err(function() rnn:forward(xs:float()) end, 'LLTM:forward', "'xs'", 'expected float64 on cpu',
          "(the module's), got float32")
    end)

    it('backward before forward, or with gradients of the wrong shape', function()
      err(function() fused.nn.LLTM(3, 4, o):backward(fused.zeros({ 5, 2, 4 }, o)) end,
          'LLTM:backward', 'call forward first')
      err(function() fused.nn.Recurrent(fused.nn.LLTMCell(3, 4)):backward(xs) end,
          'Recurrent:backward', 'call forward first')
      rnn:forward(xs)
      err(function() rnn:backward(fused.zeros({ 4, 2, 4 }, o)) end, "LLTM:backward: argument 'd_hs'",
          '[5, 2, 4]', 'got [4, 2, 4]')
      err(function() rnn:backward(fused.zeros({ 5, 2, 4 }, o), nil, fused.zeros({ 2, 5 }, o)) end,
          "LLTM:backward: argument 'd_cn'", '[2, 4]', 'got [2, 5]')
      rnn:backward(fused.zeros({ 5, 2, 4 }, o))
      err(function() rnn:backward(fused.zeros({ 5, 2, 4 }, o)) end, 'LLTM:backward',
          'backward runs once per forward')
    end)

    it('a Recurrent of something that is not a cell', function()
      err(function() fused.nn.Recurrent(42) end, 'Recurrent', "'cell'", 'number')
    end)
  end)
end)
