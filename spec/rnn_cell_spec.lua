-- nn.LSTMCell and nn.GRUCell against PyTorch's own (spec/golden/lstm_cell, gru_cell), in
-- float64 and float32; gradcheck of every cell of the engine in float64, and its backward
-- without d_hs.
local helper = require 'spec.helper'
local fused = helper.fused
local close = helper.assert_close

local CASES = {
  lstm_cell = { class = 'LSTMCell', cases = { 'small', 'tutorial' } },
  gru_cell = { class = 'GRUCell', cases = { 'tiny', 'odd', 'tutorial', 'saturated' } },
}

-- The cell with the golden parameters.
local function cell_with(class, g, dtype)
  local H = g.w_hh:size(2)
  local cell = fused.nn[class](g.w_ih:size(2), H, { dtype = dtype })
  cell.weight_ih:copy(g.w_ih); cell.weight_hh:copy(g.w_hh)
  cell.bias_ih:copy(g.b_ih); cell.bias_hh:copy(g.b_hh)
  return cell
end

describe('LSTMCell and GRUCell', function()
  for folder, spec in pairs(CASES) do
    for _, case in ipairs(spec.cases) do
      for _, dtype in ipairs({ 'float64', 'float32' }) do
        it(string.format('%s matches PyTorch on %s in %s', spec.class, case, dtype), function()
          local path = folder .. '/' .. case
          local g = helper.golden_case(path, dtype)
          local function check(t, name) close(t, g[name], helper.golden_tolerance(path, name, dtype), name) end
          local cell = cell_with(spec.class, g, dtype)
          local lstm = spec.class == 'LSTMCell'
          local new_h, new_c = cell:forward(g.x, g.h, lstm and g.c or nil)
          check(new_h, 'new_h')
          if lstm then check(new_c, 'new_c') end
          local d_x, d_h, d_c = cell:backward(g.grad_h, lstm and g.grad_c or nil)
          check(d_x, 'd_x'); check(d_h, 'd_h')
          if lstm then check(d_c, 'd_c') end
          check(cell.grad.weight_ih, 'd_w_ih'); check(cell.grad.weight_hh, 'd_w_hh')
          check(cell.grad.bias_ih, 'd_b_ih'); check(cell.grad.bias_hh, 'd_b_hh')
        end)
      end
    end
  end

  it('named_parameters in PyTorch order, initialised in ±1/sqrt(H)', function()
    local cell = fused.nn.LSTMCell(3, 4)
    local names = {}
    for name, p, g in cell:named_parameters() do
      names[#names + 1] = name
      assert.are.same(p:shape(), g:shape())
      for _, v in ipairs(p:view(p:numel()):totable()) do assert.is_true(math.abs(v) <= 0.5) end
    end
    assert.are.same({ 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh' }, names)
    assert.are.same({ 16, 3 }, cell.weight_ih:shape())
  end)

  -- Every cell of the engine in float64 against central differences, over 3 steps of a ragged
  -- batch in both directions. Inputs in the order xs, h0, [c0], w_ih, w_hh, b_ih, [b_hh].
  for _, cell in ipairs({ 'lstm', 'gru', 'lltm' }) do
    for _, reverse in ipairs({ false, true }) do
      it(string.format('gradcheck: the %s cell%s', cell, reverse and ', reversed' or ''), function()
        fused.manual_seed(11)
        local o = { dtype = 'float64' }
        local T, B, I, H = 3, 3, 4, 5
        local GH = (cell == 'lstm' and 4 or 3) * H
        local has_c, has_b_hh = cell ~= 'gru', cell ~= 'lltm'
        local inputs = { fused.randn({ T, B, I }, o), fused.randn({ B, H }, o) }
        if has_c then inputs[#inputs + 1] = fused.randn({ B, H }, o) end
        for _, shape in ipairs({ { GH, I }, { GH, H }, { GH } }) do
          inputs[#inputs + 1] = fused.randn(shape, o) * 0.5
        end
        if has_b_hh then inputs[#inputs + 1] = fused.randn({ GH }, o) * 0.5 end
        local opts = { lengths = { 3, 1, 2 }, reverse = reverse }
        local f = {
          forward = function(xs, h0, ...)
            local c0 = has_c and (...) or nil
            local w_ih, w_hh, b_ih, b_hh = select(has_c and 2 or 1, ...)
            local hs, h_n, c_n, ctx = fused.functional.rnn_forward(cell, xs, w_ih, w_hh, b_ih,
                                                                   b_hh, h0, c0, opts)
            return hs, h_n, c_n or ctx, c_n and ctx or nil
          end,
          backward = function(ctx, d_hs, d_hn, d_cn)
            local d_xs, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_h0, d_c0 =
              fused.functional.rnn_backward(ctx, d_hs, d_hn, d_cn)
            local g = { d_xs, d_h0 }
            if has_c then g[#g + 1] = d_c0 end
            for _, t in ipairs({ d_w_ih, d_w_hh, d_b_ih }) do g[#g + 1] = t end
            if has_b_hh then g[#g + 1] = d_b_hh end
            return unpack(g)
          end,
        }
        local ok, worst = fused.gradcheck(f, inputs)
        assert.is_true(ok, worst and worst.message)
      end)
    end
  end

  -- No d_hs (NULL to the engine, no gradient at the outputs) is the same as zeros; H = 11 gives
  -- the rows whole vectors and a partial one.
  for _, cell in ipairs({ 'lstm', 'gru', 'lltm' }) do
    it(string.format('the %s cell without d_hs goes back as with zeros', cell), function()
      fused.manual_seed(12)
      local F = fused.functional
      local T, B, I, H = 3, 2, 4, 11
      local GH = (cell == 'lstm' and 4 or 3) * H
      local xs, h0, d_hn = fused.randn({ T, B, I }), fused.randn({ B, H }), fused.randn({ B, H })
      local c0 = cell ~= 'gru' and fused.randn({ B, H }) or nil
      local w_ih, w_hh, b_ih = fused.randn({ GH, I }), fused.randn({ GH, H }), fused.randn({ GH })
      local b_hh = cell ~= 'lltm' and fused.randn({ GH }) or nil
      local function grads(d_hs)
        local _, _, _, ctx = F.rnn_forward(cell, xs, w_ih, w_hh, b_ih, b_hh, h0, c0)
        return { F.rnn_backward(ctx, d_hs, d_hn) }
      end
      local want, got = grads(fused.zeros({ T, B, H })), grads(nil)
      for i = 1, 7 do -- d_xs, d_w_ih, d_w_hh, d_b_ih, [d_b_hh], d_h0, [d_c0]
        if want[i] then close(got[i], want[i], 0, 'gradient ' .. i) end
      end
    end)
  end
end)
