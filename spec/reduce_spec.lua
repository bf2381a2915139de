-- Reductions over all elements (numbers) or a dim (kept with size 1, as t:sum(dim)): sum, mean,
-- prod, max, min (values and 1-based int64 indices), argmax, argmin, var, std (unbiased), norm.
local helper = require 'spec.helper'
local fused = helper.fused

-- Plain-Lua references over a list.
local function ref_sum(x) local s = 0 for _, v in ipairs(x) do s = s + v end return s end
local function ref_prod(x) local s = 1 for _, v in ipairs(x) do s = s * v end return s end
local function ref_var(x)
  local m, s = ref_sum(x) / #x, 0
  for _, v in ipairs(x) do s = s + (v - m) ^ 2 end
  return s / (#x - 1)
end
local function ref_argmax(x, less)
  local best = 1
  for i = 2, #x do if less(x[best], x[i]) then best = i end end
  return best
end

describe('reductions', function()
  for _, dtype in ipairs({ 'float32', 'float64' }) do
    local opts = { dtype = dtype }
    local tol = dtype == 'float32' and 1e-5 or 1e-12
    -- 3 x 5, odd sizes; rows as lists for the references
    local rows = { { 3, -1, 2, 7, 0.5 }, { -2, 4, 4, 1, 1.5 }, { 0.25, 6, -3, 2, 2 } }

    it('over all elements give numbers (' .. dtype .. ')', function()
      local t = fused.tensor(rows, opts)
      local flat = {}
      for _, r in ipairs(rows) do for _, v in ipairs(r) do flat[#flat + 1] = v end end
      assert.is_near(ref_sum(flat), t:sum(), tol)
      assert.is_near(ref_prod(flat), t:prod(), tol * 1e3)
      assert.are.equal(7, t:max())
      assert.are.equal(-3, t:min())
      assert.are.equal(4, t:argmax()) -- flat, from 1
      assert.are.equal(13, t:argmin())
      assert.is_near(ref_var(flat), t:var(), tol * 10)
      assert.is_near(math.sqrt(ref_var(flat)), t:std(), tol * 10)
      local sq = 0
      for _, v in ipairs(flat) do sq = sq + v * v end
      assert.is_near(math.sqrt(sq), t:norm(), tol * 10)
      local l1 = 0
      for _, v in ipairs(flat) do l1 = l1 + math.abs(v) end
      assert.is_near(l1, t:norm(1), tol * 10)
      assert.are.equal(7, t:norm(math.huge))
    end)

    it('along a dim keep it with size 1, on views too (' .. dtype .. ')', function()
      local t = fused.tensor(rows, opts)
      local values, indices = t:max(2)
      assert.are.same({ 3, 1 }, values:shape())
      assert.are.equal('int64', indices.dtype)
      for i, r in ipairs(rows) do
        local k = ref_argmax(r, function(a, b) return a < b end)
        assert.are.equal(r[k], values:totable()[i][1])
        assert.are.equal(k, indices:totable()[i][1])
        assert.are.equal(ref_argmax(r, function(a, b) return a > b end), t:argmin(2):totable()[i][1])
        assert.is_near(ref_prod(r), t:prod(2):totable()[i][1], tol * 100)
        assert.is_near(ref_var(r), t:var(2):totable()[i][1], tol * 10)
        assert.is_near(math.sqrt(ref_var(r)), t:std(2):totable()[i][1], tol * 10)
      end
      -- dim 1 through a transposed view: the same as dim 2 of t
      local tt = t:t()
      assert.are.same(t:max(2):totable()[2][1], tt:max(1):totable()[1][2])
      assert.are.same({ 1, 3 }, tt:argmax(1):shape())
      local mn, mi = tt:min(1)
      assert.are.same({ { -1, -2, -3 } }, mn:totable())
      assert.are.same({ { 2, 1, 3 } }, mi:totable())
      helper.assert_close(t:norm(2, 2), t:pow(2):sum(2):sqrt(), tol, 'norm along dim 2')
      helper.assert_close(t:mean(1), t:sum(1) / 3, tol, 'mean along dim 1')
    end)

    it('ties give the first index and NaN propagates (' .. dtype .. ')', function()
      local t = fused.tensor({ 1, 5, 5, 0 }, opts)
      assert.are.equal(2, t:argmax())
      local n = fused.tensor({ 1, 0 / 0, 5 }, opts)
      assert.are_not.equal(n:max(), n:max())
      assert.are.equal(2, n:argmin())
    end)

    it('write into out, a list for max and min (' .. dtype .. ')', function()
      local t = fused.tensor(rows, opts)
      local v, i = fused.empty(1, 5, opts), fused.empty(1, 5, { dtype = 'int64' })
      local rv, ri = t:max(1, { out = { v, i } })
      assert.are.equal(v, rv)
      assert.are.equal(i, ri)
      assert.are.same({ { 1, 3, 2, 1, 3 } }, i:totable())
      local p = fused.empty(3, 1, opts)
      assert.are.equal(p, t:prod(2, { out = p }))
    end)
  end

  it('bad input is a clear error', function()
    local t = fused.zeros(2, 3)
    helper.assert_error(function() t:max(3) end, "max: argument 'dim' expected a dim in 1..2, got 3")
    helper.assert_error(function() t:norm(0) end, "norm: argument 'p' expected a positive number, got 0")
    helper.assert_error(function() t:max(1, { out = t }) end, "max: option 'out' expected a list {values, indices}")
    helper.assert_error(function() fused.prod('x') end, "prod: argument 'input' expected a tensor, got string")
    helper.assert_error(function() fused.tensor({ true }):max() end,
                        "max: argument 'input' expected a number dtype (float32, float64 or int64), got bool")
  end)

  helper.gpu_it('match the CPU on CUDA', function()
    local t = fused.randn(7, 33)
    local v, i = t:max(2)
    local cv, ci = t:cuda():max(2)
    assert.are.same(v:totable(), cv:totable())
    assert.are.same(i:totable(), ci:totable())
    helper.assert_close(t:cuda():prod(1):cpu(), t:prod(1), 1e-6, 'prod')
  end)
end)
