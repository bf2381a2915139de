-- NumPy's broadcasting for every elementwise op of tensors (arithmetic, comparisons), checked
-- against plain-Lua loops; in place through views; comparisons, clamp, pow, abs, sqrt, neg.
local helper = require 'spec.helper'
local fused = helper.fused

-- Plain-Lua reference: f over a (p x 1) and b (1 x q) lists gives p x q.
local function outer_ref(a, b, f)
  local r = {}
  for i = 1, #a do
    r[i] = {}
    for j = 1, #b do r[i][j] = f(a[i], b[j]) end
  end
  return r
end

describe('broadcasting', function()
  for _, dtype in ipairs({ 'float32', 'float64' }) do
    local opts = { dtype = dtype }

    it('binary ops broadcast a column against a row, odd sizes (' .. dtype .. ')', function()
      local a, b = { 1, 2, 3, 4, 5 }, { 0.5, 2, 4 }
      local col = fused.tensor(a, opts):view(5, 1)
      local row = fused.tensor(b, opts):view(1, 3)
      local ops = { add = function(x, y) return x + y end, sub = function(x, y) return x - y end,
                    mul = function(x, y) return x * y end, div = function(x, y) return x / y end,
                    pow = function(x, y) return x ^ y end, maximum = math.max, minimum = math.min }
      for name, f in pairs(ops) do
        helper.assert_close(fused[name](col, row), fused.tensor(outer_ref(a, b, f), opts), 1e-6, name)
      end
      -- the shorter operand aligns at the last dims
      assert.are.same({ { 2, 4, 6 }, { 5, 7, 9 } },
                      (fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, opts) + fused.tensor({ 1, 2, 3 }, opts)):totable())
      assert.are.same({ 3, 3, 4 }, (fused.ones(3, 1, 4, opts) * fused.ones(3, 1, opts)):shape())
    end)

    it('in place, the broadcast operand is the right one and views are written through (' .. dtype .. ')', function()
      local t = fused.zeros(3, 4, opts)
      local v = t:narrow(2, 2, 2) -- 3 x 2, strided
      v:add_(fused.tensor({ 1, 2 }, opts))
      assert.are.same({ { 0, 1, 2, 0 }, { 0, 1, 2, 0 }, { 0, 1, 2, 0 } }, t:totable())
      v:mul_(fused.tensor({ { 1 }, { 2 }, { 3 } }, opts))
      assert.are.same({ { 0, 1, 2, 0 }, { 0, 2, 4, 0 }, { 0, 3, 6, 0 } }, t:totable())
      helper.assert_error(function() fused.zeros(3, opts):add_(fused.zeros(2, 3, opts)) end,
                          "add_: the result's shape [2, 3] differs from 'self''s [3]")
    end)

    it('comparisons give bool tensors, broadcast, and take a number on either side (' .. dtype .. ')', function()
      local t = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, opts)
      local m = fused.tensor({ 2, 2, 6 }, opts)
      local ref = {
        eq = function(x, y) return x == y end, ne = function(x, y) return x ~= y end,
        lt = function(x, y) return x < y end, le = function(x, y) return x <= y end,
        gt = function(x, y) return x > y end, ge = function(x, y) return x >= y end,
      }
      local tv, mv = t:totable(), m:totable()
      for name, f in pairs(ref) do
        local got = t[name](t, m)
        assert.are.equal('bool', got.dtype)
        local g = got:totable()
        for i = 1, 2 do
          for j = 1, 3 do assert.are.equal(f(tv[i][j], mv[j]), g[i][j], name) end
        end
        local s = fused[name](3, t):totable() -- 3 op t
        for i = 1, 2 do
          for j = 1, 3 do assert.are.equal(f(3, tv[i][j]), s[i][j], name .. ' with a number first') end
        end
      end
      assert.are.same({ false, true }, t:t():select(1, 2):gt(3):totable()) -- a strided view
    end)

    it('clamp, abs, sqrt, neg and pow, with numbers and tensors (' .. dtype .. ')', function()
      local t = fused.tensor({ -4, -1, 0, 1, 9 }, opts)
      assert.are.same({ -2, -1, 0, 1, 2 }, t:clamp(-2, 2):totable())
      assert.are.same({ -4, -1, 0, 1, 1 }, t:clamp(nil, 1):totable())
      assert.are.same({ 0, 0, 0, 1, 9 }, t:clamp(0):totable())
      assert.are.same({ 4, 1, 0, 1, 9 }, t:abs():totable())
      assert.are.same({ 4, 1, 0, -1, -9 }, (-t):totable())
      assert.are.same({ 2, 1, 0, 1, 3 }, t:abs():sqrt():totable())
      assert.are.same({ 16, 1, 0, 1, 81 }, t:pow(2):totable())
      assert.are.same({ 1 / 16, 0.5, 1, 2, 512 }, (2 ^ t):totable())
      assert.are.same({ 16, 1, 0, 1, 81 }, fused.pow(t, fused.tensor({ 2 }, opts)):totable())
      local c = t:clone()
      assert.are.equal(c, c:clamp_(-1, fused.tensor({ 0, 0, 0, 0, 5 }, opts)))
      assert.are.same({ -1, -1, 0, 0, 5 }, c:totable())
      helper.assert_error(function() t:clamp() end, "clamp: expected 'min' or 'max' (or both), got neither")
    end)
  end

  it('shapes that do not broadcast are an error naming both', function()
    helper.assert_error(function() return fused.zeros(2, 3) + fused.zeros(4, 1, 2) end,
                        "add: argument 'b' of shape [4, 1, 2] does not broadcast with 'a' of shape [2, 3]",
                        'sizes 2 and 3 at dim 1 from the end')
    helper.assert_error(function() return fused.zeros(2, 3):lt(fused.zeros(2)) end, "lt: argument 'b' of shape [2]")
    helper.assert_error(function() return fused.zeros(2):lt('x') end, "lt: argument 'b' expected a tensor or a number, got string")
  end)

  it('sum_to_size reduces a broadcast gradient back to its shape', function()
    local g = fused.arange(1, 25, { dtype = 'float64' }):view(2, 3, 4)
    local r = fused.sum_to_size(g, { 3, 1 })
    assert.are.same({ 3, 1 }, r:shape())
    local ref = {}
    local gt = g:totable()
    for j = 1, 3 do
      ref[j] = { 0 }
      for i = 1, 2 do for k = 1, 4 do ref[j][1] = ref[j][1] + gt[i][j][k] end end
    end
    assert.are.same(ref, r:totable())
    assert.are.same({ 4 }, g:sum_to_size(4):shape())
    assert.are.equal(g, g:sum_to_size(2, 3, 4))
    -- Leading dims of size 1 go too, with nothing to sum (they stayed: a [1, 3, 4] gradient
    -- of a [3, 4] operand kept the wrong shape, and the tape's rules with it).
    local lead = g:narrow(1, 2, 1)
    assert.are.same({ 3, 4 }, lead:sum_to_size(3, 4):shape())
    assert.are.same(lead:view(3, 4):totable(), lead:sum_to_size(3, 4):totable())
    assert.are.same({ 4 }, fused.ones({ 1, 1, 4 }):sum_to_size(4):shape())
    helper.assert_error(function() g:sum_to_size({ 2 }) end, 'sum_to_size: shape {2} is not one that broadcasts')
  end)

  helper.gpu_it('broadcasts on CUDA as on the CPU', function()
    local a, b = fused.randn(5, 1, 3), fused.randn(4, 1)
    helper.assert_close((a + b):cpu(), a:cpu() + b:cpu(), 0, 'add')
    helper.assert_close((a:cuda() * b:cuda()):cpu(), a * b, 1e-6, 'mul')
    assert.are.same(a:lt(b):totable(), a:cuda():lt(b:cuda()):totable())
    assert.are.same(fused.where(a:gt(0), a, b):totable(),
                    fused.where(a:gt(0):cuda(), a:cuda(), b:cuda()):totable())
  end)
end)
