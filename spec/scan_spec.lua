-- cumsum, cumprod (and d_cumsum, its gradient), sort and topk along each dim, against plain Lua
-- on random inputs with negatives and ties, contiguous and transposed; the CUDA error.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

-- A random rows x cols list of lists of integers in -4..4 (many ties), as floats halved when
-- half is set.
local function random_matrix(rows, cols, half)
  local m = {}
  for i = 1, rows do
    m[i] = {}
    for j = 1, cols do
      local v = math.random(-4, 4)
      m[i][j] = half and v / 2 or v
    end
  end
  return m
end

local function transpose(m)
  local r = {}
  for j = 1, #m[1] do
    r[j] = {}
    for i = 1, #m do r[j][i] = m[i][j] end
  end
  return r
end

-- f over each row of m (dim 2), or each column (dim 1): f(list) -> list (or two lists).
local function along(m, dim, f)
  if dim == 1 then
    local a, b = along(transpose(m), 2, f)
    return transpose(a), b and transpose(b)
  end
  local a, b = {}, {}
  for i, row in ipairs(m) do a[i], b[i] = f(row) end
  return a, b[1] and b or nil
end

local function scan(list, op, reverse)
  local r, acc = {}, op == 'prod' and 1 or 0
  local first, last, step = 1, #list, 1
  if reverse then first, last, step = #list, 1, -1 end
  for k = first, last, step do
    acc = op == 'prod' and acc * list[k] or acc + list[k]
    r[k] = acc
  end
  return r
end

-- Stable sort: positions by value, ties by position.
local function sort(list, descending)
  local pos = {}
  for k = 1, #list do pos[k] = k end
  table.sort(pos, function(a, b)
    if list[a] ~= list[b] then
      if descending then return list[a] > list[b] end
      return list[a] < list[b]
    end
    return a < b
  end)
  local values = {}
  for k, p in ipairs(pos) do values[k] = list[p] end
  return values, pos
end

describe('cumsum and cumprod', function()
  for _, dtype in ipairs({ 'float32', 'float64', 'int64' }) do
    it('match plain Lua along each dim, contiguous and transposed (' .. dtype .. ')', function()
      math.randomseed(11)
      local m = random_matrix(5, 7, dtype ~= 'int64')
      local t = fused.tensor(m, { dtype = dtype })
      for dim = 1, 2 do
        local s = t:cumsum(dim)
        assert.are.equal(dtype, s.dtype)
        assert.are.same(along(m, dim, function(l) return scan(l, 'sum') end), s:totable())
        assert.are.same(along(m, dim, function(l) return scan(l, 'prod') end), t:cumprod(dim):totable())
        -- the transposed view's dim 3 - dim is this dim
        assert.are.same(transpose(s:totable()), t:t():cumsum(3 - dim):totable())
        assert.are.same(along(m, dim, function(l) return scan(l, 'sum', true) end),
                        fused.d_cumsum(t, dim):totable())
      end
      assert.are.same(along(m, 2, function(l) return scan(l, 'sum') end), t:cumsum(-1):totable())
    end)
  end

  it('of bool and int64 is int64, exact beyond float64 integers', function()
    local b = fused.tensor({ true, false, true, true })
    assert.are.equal('int64', b:cumsum(1).dtype)
    assert.are.same({ 1, 1, 2, 3 }, b:cumsum(1):totable())
    assert.are.same({ 1, 0, 0, 0 }, b:cumprod(1):totable())
    local big = fused.tensor({ 2 ^ 53, 1 }, { dtype = 'int64' })
    assert.are.same({ big:sum(), big:sum() - 1 }, { big:cumsum(1):totable()[2], big:cumsum(1):totable()[1] })
  end)

  it('sums float32 in float64', function()
    local t = fused.tensor({ 1, 1e-8, -1 }, { dtype = 'float32' })
    -- float32's own running sum would lose the 1e-8 and give 0
    assert.are.near(1e-8, t:cumsum(1):totable()[3], 1e-12)
  end)

  it('writes into out, and refuses a missing dim', function()
    local t = fused.tensor({ 1, 2, 3 }, { dtype = 'float64' })
    local out = fused.empty({ 3 }, { dtype = 'float64' })
    assert.are.equal(out, t:cumsum(1, { out = out }))
    assert.are.same({ 1, 3, 6 }, out:totable())
    err(function() t:cumsum() end, "cumsum: argument 'dim' expected a dim in 1..1, got nil")
    err(function() t:cumprod(2) end, "cumprod: argument 'dim' expected a dim in 1..1, got 2")
  end)

  it('has d_cumsum as its gradient (float64 gradcheck)', function()
    local x = fused.randn(3, 4, { dtype = 'float64' })
    for dim = 1, 2 do
      local ok, worst = fused.gradcheck({
        forward = function(a) return a:cumsum(dim) end,
        backward = function(_, grad) return fused.d_cumsum(grad, dim) end,
      }, { x })
      assert.is_true(ok, worst and worst.message)
    end
  end)
end)

describe('sort', function()
  for _, dtype in ipairs({ 'float32', 'float64', 'int64' }) do
    it('is stable, ascending and descending, along each dim (' .. dtype .. ')', function()
      math.randomseed(5)
      local m = random_matrix(6, 9, dtype ~= 'int64')
      local t = fused.tensor(m, { dtype = dtype })
      for dim = 1, 2 do
        for _, descending in ipairs({ false, true }) do
          local want_v, want_i = along(m, dim, function(l) return sort(l, descending) end)
          local v, i = t:sort(dim, descending)
          assert.are.equal(dtype, v.dtype)
          assert.are.equal('int64', i.dtype)
          assert.are.same(want_v, v:totable())
          assert.are.same(want_i, i:totable())
          -- a transposed input: the same along the swapped dim
          local tv, ti = t:t():sort(3 - dim, descending)
          assert.are.same(transpose(want_v), tv:totable())
          assert.are.same(transpose(want_i), ti:totable())
          -- the indices pick the values (gather counts from 1 too)
          assert.are.same(want_v, t:gather(dim, i):totable())
        end
      end
      assert.are.same(t:sort(2):totable(), t:sort():totable())
    end)
  end

  it('puts NaN last ascending, first descending', function()
    local t = fused.tensor({ 2, 0 / 0, -1 }, { dtype = 'float64' })
    local v, i = t:sort()
    local values = v:totable()
    assert.are.same({ -1, 2 }, { values[1], values[2] })
    assert.is_true(values[3] ~= values[3])
    assert.are.same({ 3, 1, 2 }, i:totable())
    v, i = t:sort(1, true)
    assert.are.same({ 2, 1, 3 }, i:totable())
  end)

  it('sorts bool as false before true, and writes into out', function()
    local v, i = fused.tensor({ true, false, true, false }):sort()
    assert.are.equal('bool', v.dtype)
    assert.are.same({ false, false, true, true }, v:totable())
    assert.are.same({ 2, 4, 1, 3 }, i:totable())
    local t = fused.tensor({ 3, 1, 2 }, { dtype = 'float64' })
    local ov, oi = fused.empty({ 3 }, { dtype = 'float64' }), fused.empty({ 3 }, { dtype = 'int64' })
    local rv, ri = t:sort(1, false, { out = { ov, oi } })
    assert.are.equal(ov, rv)
    assert.are.equal(oi, ri)
    assert.are.same({ 1, 2, 3 }, ov:totable())
    assert.are.same({ 2, 3, 1 }, oi:totable())
  end)

  it('refuses a bad dim, a descending that is not a boolean, an out that is not a list', function()
    local t = fused.tensor({ { 1, 2 } })
    err(function() t:sort(3) end, "sort: argument 'dim' expected a dim in 1..2, got 3")
    err(function() t:sort(1, 1) end, "sort: argument 'descending' expected a boolean, got number")
    err(function() t:sort(1, false, { out = t }) end,
        "sort: option 'out' expected a list {values, indices}")
  end)
end)

describe('topk', function()
  it('gives the k largest or smallest along each dim, sorted, as sort then the first k', function()
    math.randomseed(9)
    local m = random_matrix(5, 8, true)
    local t = fused.tensor(m, { dtype = 'float64' })
    for dim = 1, 2 do
      for _, largest in ipairs({ true, false }) do
        local k = 3
        local v, i = t:topk(k, dim, largest)
        local sv, si = t:sort(dim, largest)
        assert.are.same(sv:narrow(dim, 1, k):totable(), v:totable())
        assert.are.same(si:narrow(dim, 1, k):totable(), i:totable())
        assert.are.same(t:t():topk(k, 3 - dim, largest):t():totable(), v:totable())
      end
    end
    assert.are.same({ { 5, 4 } }, fused.tensor({ { 1, 5, 4 } }):topk(2):totable())
  end)

  it('refuses a k outside 1..size and flags that are not booleans', function()
    local t = fused.tensor({ { 1, 5, 4 } })
    err(function() t:topk(4) end, "topk: argument 'k' expected an integer in 0..3 (the size of dim 2), got 4")
    err(function() t:topk(-1) end, "topk: argument 'k' expected an integer in 0..3")
    err(function() t:topk(1.5) end, "topk: argument 'k' expected an integer in 0..3")
    err(function() t:topk(1, 2, 'yes') end, "topk: argument 'largest' expected a boolean, got string")
    err(function() t:topk(1, 2, true, 0) end, "topk: argument 'sorted' expected a boolean, got number")
  end)
end)

describe('scans and sort on cuda', function()
  helper.gpu_it('raise an error that says to move to the cpu', function()
    for _, dtype in ipairs({ 'float32', 'int64', 'bool' }) do
      local t = fused.tensor({ 1, 0, 1 }, { dtype = dtype, device = 'cuda' })
      for _, name in ipairs({ 'cumsum', 'cumprod', 'sort' }) do
        err(function() t[name](t, 1) end,
            name .. ": not implemented for cuda tensors yet; call :to('cpu') first")
      end
      err(function() t:topk(1) end, "topk: not implemented for cuda tensors yet; call :to('cpu') first")
    end
  end)
end)
