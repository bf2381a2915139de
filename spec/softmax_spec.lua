-- fused.softmax, log_softmax and logsumexp against plain-Lua references along every dim, on
-- inputs of +-1000 that overflow exp, non-contiguous views, float32 and float64; their backward
-- against a float64 gradcheck; CUDA against the CPU; bad arguments raise.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

-- The reference along dim of a 3-D table t: max subtracted, as a careful hand would.
local function reference(t, dim, kind)
  local n1, n2, n3 = #t, #t[1], #t[1][1]
  local out = {}
  for i = 1, n1 do
    out[i] = {}
    for j = 1, n2 do out[i][j] = {} end
  end
  local function column(i, j, k) -- the positions of the column through (i, j, k) along dim
    local at, len = {}, ({ n1, n2, n3 })[dim]
    for d = 1, len do
      local p = { i, j, k }
      p[dim] = d
      at[d] = p
    end
    return at
  end
  local function get(p) return t[p[1]][p[2]][p[3]] end
  for i = 1, n1 do
    for j = 1, n2 do
      for k = 1, n3 do
        local col = column(i, j, k)
        local max = -math.huge
        for _, p in ipairs(col) do max = math.max(max, get(p)) end
        local sum = 0
        for _, p in ipairs(col) do sum = sum + math.exp(get(p) - max) end
        local x = t[i][j][k]
        if kind == 'softmax' then out[i][j][k] = math.exp(x - max) / sum
        elseif kind == 'log_softmax' then out[i][j][k] = x - max - math.log(sum)
        else out[i][j][k] = max + math.log(sum) end
      end
    end
  end
  return out
end

local function sample(dtype)
  local t = fused.randn({ 3, 4, 5 }, { dtype = 'float64' }):mul_(3)
  t[{ 1, 2, 3 }] = 1000
  t[{ 2, 1, 4 }] = -1000
  t[{ 3, 3, 1 }] = 1000
  t[{ 3, 3, 2 }] = 999
  return t:to(dtype)
end

describe('softmax, log_softmax and logsumexp', function()
  for _, dtype in ipairs({ 'float64', 'float32' }) do
    local tol = dtype == 'float64' and 1e-12 or 1e-6

    it('match a plain-Lua reference along every dim, with inputs of +-1000 (' .. dtype .. ')', function()
      local t = sample(dtype)
      local values = t:double():totable()
      for dim = 1, 3 do
        for _, kind in ipairs({ 'softmax', 'log_softmax' }) do
          local got = fused[kind](t, dim)
          assert.are.equal(dtype, got.dtype)
          helper.assert_close(got, fused.tensor(reference(values, dim, kind), { dtype = 'float64' }), tol,
                              kind .. ' dim ' .. dim)
        end
        local want = fused.tensor(reference(values, dim, 'logsumexp'), { dtype = 'float64' })
        local ones = { 3, 4, 5 }
        ones[dim] = 1
        local lse = fused.logsumexp(t, dim, true)
        assert.are.same(ones, lse:shape())
        helper.assert_close(lse, fused.index_select(want, dim, fused.tensor({ 1 }, { dtype = 'int64' })),
                            tol, 'logsumexp dim ' .. dim)
        local dropped = { 3, 4, 5 }
        table.remove(dropped, dim)
        assert.are.same(dropped, t:logsumexp(dim):shape())
      end
      for _, v in ipairs(fused.log_softmax(t, 3):view(-1):totable()) do
        assert(v > -math.huge and v < math.huge, 'log_softmax is not finite')
      end
    end)
  end

  it('take negative dims and non-contiguous views', function()
    local base = sample('float64')
    local t = base:transpose(1, 3) -- 5 x 4 x 3, strided
    assert.is_false(t:is_contiguous())
    helper.assert_close(fused.softmax(t, -1), fused.softmax(t:contiguous(), 3), 0, 'softmax')
    helper.assert_close(fused.log_softmax(t, 2), fused.log_softmax(base, 2):transpose(1, 3), 0,
                        'log_softmax')
    helper.assert_close(fused.logsumexp(t, 1), fused.logsumexp(base, 3):transpose(1, 2), 0,
                        'logsumexp')
  end)

  it('give -inf for logsumexp of -inf, and write into out', function()
    local t = fused.tensor({ { -math.huge, -math.huge }, { 1, -math.huge } }, { dtype = 'float64' })
    assert.are.same({ -math.huge, 1 }, fused.logsumexp(t, 2):totable())
    assert.are.same({ 1, 0 }, fused.softmax(t, 2):totable()[2])
    local out = fused.zeros(2, 2, { dtype = 'float64' })
    assert.are.equal(out, fused.softmax(t, 1, { out = out }))
    local columns = out:totable() -- column 1 is {-inf, 1}; column 2, all -inf, NaN as PyTorch's
    assert.are.same({ 0, 1 }, { columns[1][1], columns[2][1] })
    assert.are_not.equal(columns[1][2], columns[1][2])
  end)

  local o = { dtype = 'float64' }
  local function op(kind, dim)
    return {
      forward = function(x)
        local y = fused[kind](x, dim)
        return y, { x = x, y = y }
      end,
      backward = function(ctx, g) return fused[kind .. '_backward'](g, ctx.y, dim) end,
    }
  end

  for _, kind in ipairs({ 'softmax', 'log_softmax' }) do
    it(kind .. '_backward passes a float64 gradcheck along every dim', function()
      for dim = 1, 3 do
        local ok, worst = fused.gradcheck(op(kind, dim), { fused.randn({ 3, 4, 2 }, o) })
        assert.is_true(ok, worst.message)
      end
    end)
  end

  it('logsumexp_backward passes a float64 gradcheck, with and without keepdim', function()
    for _, keepdim in ipairs({ true, false }) do
      for dim = 1, 3 do
        local ok, worst = fused.gradcheck({
          forward = function(x)
            local y = fused.logsumexp(x, dim, keepdim)
            return y, { x = x, y = y }
          end,
          backward = function(ctx, g) return fused.logsumexp_backward(g, ctx.x, ctx.y, dim, keepdim) end,
        }, { fused.randn({ 3, 4, 2 }, o):mul_(5) })
        assert.is_true(ok, worst.message)
      end
    end
  end)

  it('refuse bad arguments, naming them', function()
    local t = fused.randn(2, 3)
    err(function() fused.softmax(t) end, "softmax: argument 'dim' expected a dim in 1..2, got nil")
    err(function() t:log_softmax(3) end, "log_softmax: argument 'dim' expected a dim in 1..2, got 3")
    err(function() fused.logsumexp(t, 1, 'yes') end,
        "logsumexp: argument 'keepdim' expected a boolean, got string")
    err(function() fused.softmax(fused.tensor({ 1, 2 }, { dtype = 'int64' }), 1) end,
        "softmax: argument 'input' expected a floating dtype (float32 or float64), got int64")
    err(function() fused.softmax_backward(fused.randn(3, 2), t, 1) end,
        'softmax_backward', "'grad_output'")
  end)

  helper.gpu_it('match the CPU on CUDA, forward and backward', function()
    for _, dtype in ipairs({ 'float64', 'float32' }) do
      local tol = dtype == 'float64' and 1e-12 or 1e-6
      local x, g = sample(dtype), fused.randn({ 3, 4, 5 }, { dtype = dtype })
      for dim = 1, 3 do
        for _, kind in ipairs({ 'softmax', 'log_softmax' }) do
          local y = fused[kind](x, dim)
          local cy = fused[kind](x:cuda(), dim)
          assert.are.equal('cuda', cy.device)
          helper.assert_close(cy:cpu(), y, tol, kind)
          helper.assert_close(fused[kind .. '_backward'](g:cuda(), cy, dim):cpu(),
                              fused[kind .. '_backward'](g, y, dim), tol, kind .. '_backward')
        end
        helper.assert_close(fused.logsumexp(x:cuda(), dim):cpu(), fused.logsumexp(x, dim), tol, 'logsumexp')
      end
    end
  end)
end)
