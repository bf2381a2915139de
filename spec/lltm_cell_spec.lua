-- The LLTM cell: fused (LLTMCell, fused.functional) and composed (LLTMCellComposed) against the
-- golden vectors, against each other, against numeric gradients; accumulation; bad input.
local helper = require 'spec.helper'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error

local CASES = { 'tiny', 'odd', 'tutorial', 'tall', 'saturated' }
local CELLS = { 'LLTMCell', 'LLTMCellComposed' }

local function golden(case, dtype)
  local g = {}
  for _, name in ipairs({ 'x', 'h', 'c', 'W', 'b', 'grad_h', 'grad_c', 'new_h', 'new_c', 'd_x',
                          'd_h', 'd_c', 'd_W', 'd_b' }) do
    g[name] = helper.load_golden('lltm_cell/' .. case, name, dtype)
  end
  return g
end

-- A cell of the given class holding W and b.
local function cell_with(class, W, b)
  local H = W:size(1) / 3
  local cell = fused.nn[class](W:size(2) - H, H, { dtype = W.dtype })
  cell.weight:copy(W)
  cell.bias:copy(b)
  return cell
end

local function random_inputs(B, I, H, dtype)
  local o = { dtype = dtype }
  return fused.randn({ B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o),
         fused.randn({ B, H }, o), fused.randn({ B, H }, o)
end

describe('LLTM cell', function()
  for _, dtype in ipairs({ 'float64', 'float32' }) do
    for _, case in ipairs(CASES) do
      for _, class in ipairs(CELLS) do
        it(string.format('%s matches golden %s in %s', class, case, dtype), function()
          local g = golden(case, dtype)
          local function tol(name) return helper.golden_tolerance('lltm_cell/' .. case, name, dtype) end
          local cell = cell_with(class, g.W, g.b)
          local new_h, new_c = cell:forward(g.x, g.h, g.c)
          local d_x, d_h, d_c = cell:backward(g.grad_h, g.grad_c)
          close(new_h, g.new_h, tol('new_h'), 'new_h')
          close(new_c, g.new_c, tol('new_c'), 'new_c')
          close(d_x, g.d_x, tol('d_x'), 'd_x')
          close(d_h, g.d_h, tol('d_h'), 'd_h')
          close(d_c, g.d_c, tol('d_c'), 'd_c')
          close(cell.grad.weight, g.d_W, tol('d_W'), 'gradWeight')
          close(cell.grad.bias, g.d_b, tol('d_b'), 'gradBias')
        end)
      end
    end
  end

  it('functional API matches golden (tall, float64)', function()
    local g = golden('tall', 'float64')
    local new_h, new_c, ctx = fused.functional.lltm_forward(g.x, g.W, g.b, g.h, g.c)
    close(new_h, g.new_h, 1e-10, 'new_h')
    close(new_c, g.new_c, 1e-10, 'new_c')
    local d_x, d_W, d_b, d_h, d_c = fused.functional.lltm_backward(ctx, g.grad_h, g.grad_c)
    for name, t in pairs({ d_x = d_x, d_W = d_W, d_b = d_b, d_h = d_h, d_c = d_c }) do
      close(t, g[name], 1e-10, name)
    end
  end)

  it('fused and composed agree on random sizes, B, I or H = 1 included', function()
    fused.manual_seed(1)
    for _, s in ipairs({ { 1, 1, 1 }, { 1, 4, 3 }, { 5, 1, 3 }, { 4, 3, 1 }, { 7, 9, 13 },
                         { 2, 17, 33 } }) do
      local B, I, H = s[1], s[2], s[3]
      local what = string.format('(%d, %d, %d) ', B, I, H)
      local fast = fused.nn.LLTMCell(I, H, { dtype = 'float64' })
      local slow = cell_with('LLTMCellComposed', fast.weight, fast.bias)
      local x, h, c, gh, gc = random_inputs(B, I, H, 'float64')
      local a = { fast:forward(x, h, c) }
      local b = { slow:forward(x, h, c) }
      close(a[1], b[1], 1e-12, what .. 'new_h')
      close(a[2], b[2], 1e-12, what .. 'new_c')
      a, b = { fast:backward(gh, gc) }, { slow:backward(gh, gc) }
      for i, name in ipairs({ 'd_x', 'd_h', 'd_c' }) do close(a[i], b[i], 1e-12, what .. name) end
      close(fast.grad.weight, slow.grad.weight, 1e-12, what .. 'gradWeight')
      close(fast.grad.bias, slow.grad.bias, 1e-12, what .. 'gradBias')
    end
  end)

  it('passes gradcheck, fused and composed', function()
    fused.manual_seed(2)
    local x, h, c = random_inputs(2, 3, 4, 'float64')
    local W = fused.randn({ 12, 7 }, { dtype = 'float64' }) * 0.5
    local b = fused.randn({ 12 }, { dtype = 'float64' })
    local ok, worst = fused.gradcheck({ forward = fused.functional.lltm_forward,
                                        backward = fused.functional.lltm_backward },
                                      { x, W, b, h, c })
    assert(ok, worst.message)
    local composed = {
      forward = function(x_, W_, b_, h_, c_)
        local cell = cell_with('LLTMCellComposed', W_, b_)
        local new_h, new_c = cell:forward(x_, h_, c_)
        return new_h, new_c, cell
      end,
      backward = function(cell, grad_h, grad_c)
        local d_x, d_h, d_c = cell:backward(grad_h, grad_c)
        return d_x, cell.grad.weight, cell.grad.bias, d_h, d_c
      end,
    }
    ok, worst = fused.gradcheck(composed, { x, W, b, h, c })
    assert(ok, worst.message)
  end)

  it('backward adds into grad.weight and grad.bias; zeroGradParameters clears them', function()
    for _, class in ipairs(CELLS) do
      local g = golden('odd', 'float64')
      local cell = cell_with(class, g.W, g.b)
      cell:forward(g.x, g.h, g.c)
      cell:backward(g.grad_h, g.grad_c)
      cell:forward(g.x, g.h, g.c) -- backward runs once per forward
      local d_x = cell:backward(g.grad_h, g.grad_c)
      close(d_x, g.d_x, 1e-10, class .. ' d_x of a second backward')
      close(cell.grad.weight, g.d_W * 2, 1e-10, class .. ' gradWeight after two backwards')
      close(cell.grad.bias, g.d_b * 2, 1e-10, class .. ' gradBias after two backwards')
      cell:zeroGradParameters()
      assert.are.equal(0, cell.grad.weight:abs():sum() + cell.grad.bias:abs():sum())
    end
  end)

  it('is a Module: parameters, initialisation, conversion', function()
    local cell = fused.nn.LLTMCell(5, 4)
    local params, grads = cell:parameters()
    assert.are.equal(cell.weight, params[1])
    assert.are.equal(cell.bias, params[2])
    assert.are.equal(cell.grad.weight, grads[1])
    assert.are.equal(cell.grad.bias, grads[2])
    assert.are.same({ 12, 9 }, cell.weight:shape())
    assert.are.same({ 12 }, cell.bias:shape())
    assert.are.equal('float32', cell.weight.dtype)
    for _, t in ipairs(params) do
      for _, v in ipairs(t:view(-1):totable()) do
        assert(math.abs(v) <= 0.5, 'init in ±1/sqrt(H)')
      end
    end
    cell:double()
    assert.are.equal('float64', cell.weight.dtype)
    assert.are.equal('float64', cell.grad.bias.dtype)
  end)

  describe('NaN and infinities', function()
    local nan, inf = 0 / 0, math.huge
    local with, nan_mask = helper.with_element, helper.nan_mask

    for _, dtype in ipairs({ 'float32', 'float64' }) do
      -- B 3, I 2, H 4: the NaN goes into row 2 of x or h, one element of c, a candidate row of
      -- W (ELU's path) or the input gate's bias.
      for _, case in ipairs({ { 'x', 3 }, { 'h', 5 }, { 'c', 6 }, { 'W', 8 * 6 + 1 }, { 'b', 2 } }) do
        it(string.format('NaN in %s gives NaN where the composed cell has it, in %s', case[1], dtype), function()
          fused.manual_seed(5)
          local inputs = {}
          inputs.x, inputs.h, inputs.c = random_inputs(3, 2, 4, dtype)
          local fast = fused.nn.LLTMCell(2, 4, { dtype = dtype })
          inputs.W, inputs.b = fast.weight, fast.bias
          inputs[case[1]] = with(inputs[case[1]], case[2], nan)
          fast = cell_with('LLTMCell', inputs.W, inputs.b)
          local slow = cell_with('LLTMCellComposed', inputs.W, inputs.b)
          local grad = fused.ones({ 3, 4 }, { dtype = dtype })
          local a = { fast:forward(inputs.x, inputs.h, inputs.c) }
          local b = { slow:forward(inputs.x, inputs.h, inputs.c) }
          assert(nan_mask(a[1]):find('1'), 'no NaN in new_h')
          for _, t in ipairs({ fast:backward(grad, grad) }) do a[#a + 1] = t end
          for _, t in ipairs({ slow:backward(grad, grad) }) do b[#b + 1] = t end
          a[#a + 1], b[#b + 1] = fast.grad.weight, slow.grad.weight
          a[#a + 1], b[#b + 1] = fast.grad.bias, slow.grad.bias
          for i, name in ipairs({ 'new_h', 'new_c', 'd_x', 'd_h', 'd_c', 'gradWeight', 'gradBias' }) do
            assert.are.equal(nan_mask(b[i]), nan_mask(a[i]), name)
          end
        end)
      end

      it('infinite gate pre-activations saturate, fused and composed, in ' .. dtype, function()
        local o = { dtype = dtype }
        local zero = fused.zeros({ 1, 1 }, o)
        -- bias {input, output, candidate}, c; then new_c, new_h
        for _, s in ipairs({ { { inf, inf, -inf }, 0.5, -0.5, math.tanh(-0.5) },
                             { { -inf, inf, 3 }, 0.5, 0.5, math.tanh(0.5) },
                             { { inf, -inf, inf }, 0, inf, 0 },
                             { { inf, inf, 0 }, -inf, -inf, -1 } }) do
          for _, class in ipairs(CELLS) do
            local cell = cell_with(class, fused.zeros({ 3, 2 }, o), fused.tensor(s[1], o))
            local new_h, new_c = cell:forward(zero, zero, fused.full({ 1, 1 }, s[2], o))
            local what = string.format('%s, bias {%g, %g, %g}, c %g: ', class, s[1][1], s[1][2],
                                       s[1][3], s[2])
            local c_T, h_T = new_c:item(), new_h:item()
            assert(c_T == s[3] or math.abs(c_T - s[3]) < 1e-6, what .. 'new_c ' .. c_T)
            assert(h_T == s[4] or math.abs(h_T - s[4]) < 1e-6, what .. 'new_h ' .. h_T)
          end
        end
      end)
    end
  end)

  describe('bad input', function()
    local x, h, c = random_inputs(3, 5, 7, 'float64')
    local cell = fused.nn.LLTMCell(5, 7, { dtype = 'float64' })

    it('weights that do not fit I and H', function()
      local wrong = fused.nn.LLTMCell(4, 7, { dtype = 'float64' })
      err(function() wrong:forward(x, h, c) end, "LLTMCell:forward: argument 'x'", 'B x 4',
          'input_features 4', 'got [3, 5]')
      local W = fused.zeros({ 21, 12 }, { dtype = 'float64' })
      local b = fused.zeros({ 20 }, { dtype = 'float64' })
      err(function() fused.functional.lltm_forward(x, W, b, h, c) end, 'lltm_forward', "'b'",
          '[21]', 'got [20]')
    end)

    it('x and h with different batch sizes', function()
      local h4 = fused.zeros({ 4, 7 }, { dtype = 'float64' })
      err(function() cell:forward(x, h4, c) end, "LLTMCell:forward: argument 'h'", '[3, 7]', 'got [4, 7]')
      err(function() cell:forward(x, h, h4) end, "LLTMCell:forward: argument 'c'", '[3, 7]', 'got [4, 7]')
    end)

    it('mixed dtypes', function()
      err(function() cell:forward(x:float(), h, c) end, "LLTMCell:forward: argument 'x'",
          "expected float64 on cpu (the module's), got float32")
      err(function() cell:forward(x, h, c:float()) end, "LLTMCell:forward: argument 'c'", 'float64',
          'got float32')
    end)

    it('non-contiguous (taken, as PyTorch takes it), wrong dims, not a tensor', function()
      local xt = x:t():contiguous():t()
      local want = cell:forward(x, h, c):clone()
      helper.assert_close(cell:forward(xt, h, c), want, 0, 'a transposed x')
      err(function() cell:forward(x:view(15), h, c) end, "LLTMCell:forward: argument 'x'", 'B x 5',
          'got [15]')
      err(function() cell:forward(x, nil, c) end, 'LLTMCell:forward', "'h'", 'expected a tensor', 'nil')
    end)

    it('backward before forward, or with bad gradients', function()
      local fresh = fused.nn.LLTMCell(5, 7, { dtype = 'float64' })
      err(function() fresh:backward(h, c) end, 'LLTMCell:backward', 'call forward first')
      err(function() fused.nn.LLTMCellComposed(5, 7):backward(h, c) end,
          'LLTMCellComposed:backward', 'call forward first')
      err(function() fused.functional.lltm_backward(nil, h, c) end, 'lltm_backward', "'ctx'")
      cell:forward(x, h, c)
      err(function() cell:backward(h, fused.zeros({ 3, 6 }, { dtype = 'float64' })) end,
          "LLTMCell:backward: argument 'grad_c'", '[3, 7]', 'got [3, 6]')
    end)

    it('sizes that are not positive integers', function()
      err(function() fused.nn.LLTMCell(0, 7) end, 'LLTMCell', "'input_features'", 'got 0')
      err(function() fused.nn.LLTMCellComposed(3, 2.5) end, 'LLTMCellComposed', "'state_size'",
          '2.5')
    end)
  end)
end)
