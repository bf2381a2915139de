-- Cells of your own on the engine (fused.ext.cell, docs/extending.md): the LLTM written as a
-- user cell (examples/custom_cell/lltm.c) gives the built-in LLTM's outputs and gradients, and
-- a cell fused does not have, the MGU (mgu.c), passes gradcheck alone and as nn.RNN's cell.
local fused = require 'fused'
local F = fused.functional

local cache = os.tmpname()
local examples = 'examples/custom_cell/'
local o = { dtype = 'float64' }

local function max_diff(a, b) return (a - b):abs():max() end

describe('fused.ext.cell', function()
  local lltm, mgu
  setup(function()
    lltm = fused.ext.cell { name = 'user_lltm', sources = { examples .. 'lltm.c' }, step = 'lltm',
                            gates = 3, state = 'hc', saved = 5, cache_dir = cache .. '.d' }
    mgu = fused.ext.cell { name = 'mgu', sources = { examples .. 'mgu.c' }, gates = 2, state = 'h',
                           saved = 6, d_ih = 3, cache_dir = cache .. '.d' }
  end)
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  for _, reverse in ipairs({ false, true }) do
    it('runs the LLTM as a user cell with the built-in one\'s results, float64 within 1e-12'
       .. (reverse and ', reversed' or ''), function()
      fused.manual_seed(3)
      local T, B, I, H = 5, 4, 3, 6
      local xs, h0, c0 = fused.randn({ T, B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
      local w_ih, w_hh = fused.randn({ 3 * H, I }, o) * 0.5, fused.randn({ 3 * H, H }, o) * 0.5
      local b, zero = fused.randn({ 3 * H }, o), fused.zeros({ 3 * H }, o)
      local opts = { lengths = { 5, 2, 4, 1 }, reverse = reverse }
      local d_hs, d_hn, d_cn = fused.randn({ T, B, H }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
      local ours = { F.rnn_forward('lltm', xs, w_ih, w_hh, b, nil, h0, c0, opts) }
      local theirs = { F.rnn_forward(lltm, xs, w_ih, w_hh, b, zero, h0, c0, opts) }
      for i = 1, 3 do assert.is_true(max_diff(ours[i], theirs[i]) <= 1e-12, 'output ' .. i) end
      local g_ours = { F.rnn_backward(ours[4], d_hs, d_hn, d_cn) }
      local g_theirs = { F.rnn_backward(theirs[4], d_hs, d_hn, d_cn) }
      for _, i in ipairs({ 1, 2, 3, 4, 6, 7 }) do -- all but d_b_hh, which the LLTM has not
        assert.is_true(max_diff(g_ours[i], g_theirs[i]) <= 1e-12, 'gradient ' .. i)
      end
    end)
  end

  for _, reverse in ipairs({ false, true }) do
    it('gradcheck: the MGU cell over a ragged batch' .. (reverse and ', reversed' or ''), function()
      fused.manual_seed(5)
      local T, B, I, H = 3, 3, 4, 5
      local inputs = { fused.randn({ T, B, I }, o), fused.randn({ B, H }, o),
                       fused.randn({ 2 * H, I }, o) * 0.5, fused.randn({ 2 * H, H }, o) * 0.5,
                       fused.randn({ 2 * H }, o) * 0.5, fused.randn({ 2 * H }, o) * 0.5 }
      local opts = { lengths = { 3, 1, 2 }, reverse = reverse }
      local ok, worst = fused.gradcheck({
        forward = function(xs, h0, w_ih, w_hh, b_ih, b_hh)
          local hs, h_n, _, ctx = F.rnn_forward(mgu, xs, w_ih, w_hh, b_ih, b_hh, h0, nil, opts)
          return hs, h_n, ctx
        end,
        backward = function(ctx, d_hs, d_hn)
          local d_xs, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_h0 = F.rnn_backward(ctx, d_hs, d_hn)
          return d_xs, d_h0, d_w_ih, d_w_hh, d_b_ih, d_b_hh
        end,
      }, inputs)
      assert.is_true(ok, worst and worst.message)
    end)
  end

  it('gradcheck: nn.RNN over the MGU, 2 layers, bidirectional, ragged', function()
    fused.manual_seed(7)
    local T, B, I, H = 4, 3, 2, 3
    local m = fused.nn.RNN(I, H, { cell = mgu, num_layers = 2, bidirectional = true, dtype = 'float64' })
    local lengths = { 2, 4, 1 }
    local inputs = { fused.randn({ T, B, I }, o), fused.randn({ 4, B, H }, o) }
    for _, p in m:named_parameters() do inputs[#inputs + 1] = p:clone() end
    local ok, worst = fused.gradcheck({
      forward = function(xs, h0, ...)
        local args, i = { ... }, 0
        for _, p in m:named_parameters() do i = i + 1; p:copy(args[i]) end
        return m:forward(xs, h0, { lengths = lengths })
      end,
      backward = function(_, d_hs, d_hn)
        m:zeroGradParameters()
        local g = { m:backward(d_hs, d_hn) }
        for _, _, grad in m:named_parameters() do g[#g + 1] = grad end
        return unpack(g)
      end,
    }, inputs)
    assert.is_true(ok, worst and worst.message)
  end)

  it('names a step function the library lacks, and a missing cell option', function()
    assert.has_error(function()
      fused.ext.cell { name = 'nosteps', sources = { examples .. 'mgu.c' }, step = 'gru_user',
                       gates = 2, state = 'h', cache_dir = cache .. '.d' }
    end, 'fused.ext.cell: nosteps defines no gru_user_forward_f32 (FUSED_CELL_FORWARD/BACKWARD(gru_user, ...) in fused_ext.h)')
    assert.has_error(function()
      fused.ext.cell { name = 'mgu', sources = { examples .. 'mgu.c' }, gates = 2, state = 'x' }
    end, "fused.ext.cell: option 'state' expected 'h', 'hc' or a list of names, got x")
    assert.has_error(function() fused.nn.RNN(2, 3, {}) end,
      "RNN: option 'cell' expected a cell from fused.cell.define or fused.ext.cell, got nil")
  end)
end)
