-- split and chunk (lists of views), repeat (a tiled copy), nonzero and unique, against plain
-- Lua on random inputs, contiguous and transposed; their bad arguments and CUDA errors.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

local function random_list(n, lo, hi)
  local r = {}
  for i = 1, n do r[i] = math.random(lo, hi) end
  return r
end

describe('split and chunk', function()
  it('give views of the sizes asked, along each dim, that write through', function()
    local t = fused.arange(24, { dtype = 'float64' }):view(4, 6)
    local pieces = t:split(4, 2)
    assert.are.same({ 2 }, { #pieces })
    assert.are.same({ 4, 4 }, pieces[1]:shape())
    assert.are.same({ 4, 2 }, pieces[2]:shape())
    assert.are.same(t:narrow(2, 5, 2):totable(), pieces[2]:totable())
    pieces[2]:fill_(-1)
    assert.are.equal(-1, t:totable()[4][6])
    local rows = t:split({ 1, 3 })
    assert.are.same({ { 1, 6 }, { 3, 6 } }, { rows[1]:shape(), rows[2]:shape() })
    assert.are.same(t:narrow(1, 2, 3):totable(), rows[2]:totable())
    -- a transposed view splits along its own dims
    local cols = t:t():split(2, 2)
    assert.are.same(t:narrow(1, 3, 2):t():totable(), cols[2]:totable())
    assert.are.same(t:split(2, 1)[2]:totable(), t:chunk(2, 1)[2]:totable())
    assert.are.equal(3, #t:chunk(3, 2))
  end)

  it('split refuses a size that is not a positive integer, and sizes that do not add up', function()
    local t = fused.zeros(2, 5)
    err(function() t:split(0) end, "split: argument 'split_size' expected a positive integer or a list of them, got 0")
    err(function() t:split({ 1, 3 }, 2) end,
        "split: argument 'split_size' expected a positive integer or sizes (0 or more) adding up to 5 (the size of dim 2), got {1, 3}")
    err(function() t:split({ 6, -1 }, 2) end, "got {6, -1}")
    err(function() t:split(1, 3) end, "split: argument 'dim' expected a dim in 1..2, got 3")
  end)
end)

describe('repeat', function()
  it('tiles each dim, with leading dims added, as PyTorch', function()
    math.randomseed(2)
    local m = { random_list(3, -5, 5), random_list(3, -5, 5) }
    local t = fused.tensor(m, { dtype = 'int64' })
    local r = t:repeatTensor(2, 3)
    assert.are.same({ 4, 9 }, r:shape())
    for i = 1, 4 do
      for j = 1, 9 do
        assert.are.equal(m[(i - 1) % 2 + 1][(j - 1) % 3 + 1], r:totable()[i][j])
      end
    end
    assert.are.same(r:totable(), fused['repeat'](t, { 2, 3 }):totable())
    assert.are.same(r:totable(), t['repeat'](t, 2, 3):totable())
    local lead = t:repeatTensor(2, 1, 1)
    assert.are.same({ 2, 2, 3 }, lead:shape())
    assert.are.same({ m, m }, lead:totable())
    -- a transposed input
    assert.are.same(t:t():contiguous():repeatTensor(1, 2):totable(), t:t():repeatTensor(1, 2):totable())
  end)

  it('is a copy, even of all ones', function()
    local t = fused.tensor({ 1, 2 })
    local r = t:repeatTensor(1)
    r:fill_(0)
    assert.are.same({ 1, 2 }, t:totable())
  end)

  it('refuses fewer sizes than dims, and sizes below 1', function()
    local t = fused.zeros(2, 3)
    err(function() t:repeatTensor(2) end, "repeat: argument 'sizes' expected 2 to 8 positive integers (at least one per dim), got {2}")
    err(function() t:repeatTensor(2, 0) end, "repeat: argument 'sizes' expected 2 to 8 positive integers", 'got {2, 0}')
  end)
end)

describe('nonzero', function()
  for _, dtype in ipairs({ 'float32', 'float64', 'int64', 'bool' }) do
    it('lists the positions of the nonzero elements, from 1, row-major (' .. dtype .. ')', function()
      math.randomseed(4)
      local m = {}
      for i = 1, 4 do
        m[i] = random_list(5, -1, 1)
        if dtype == 'bool' then
          for j = 1, 5 do m[i][j] = m[i][j] ~= 0 end
        end
      end
      m[1][1] = dtype == 'bool' or 3 -- at least one
      local t = fused.tensor(m, { dtype = dtype })
      local want, want_t = {}, {}
      local function nz(x) return x ~= 0 and x ~= false end
      for i = 1, 4 do
        for j = 1, 5 do if nz(m[i][j]) then want[#want + 1] = { i, j } end end
      end
      for j = 1, 5 do
        for i = 1, 4 do if nz(m[i][j]) then want_t[#want_t + 1] = { j, i } end end
      end
      local r = t:nonzero()
      assert.are.equal('int64', r.dtype)
      assert.are.same(want, r:totable())
      assert.are.same(want_t, fused.nonzero(t:t()):totable())
    end)
  end

  it('counts NaN as nonzero, and gives 0 x ndim for a tensor with none, as PyTorch', function()
    assert.are.same({ { 2 } }, fused.tensor({ 0, 0 / 0 }):nonzero():totable())
    assert.are.same({ 0, 1 }, fused.zeros(3):nonzero():shape())
  end)
end)

describe('unique', function()
  for _, dtype in ipairs({ 'float64', 'int64' }) do
    it('gives the sorted distinct values, the inverse and the counts (' .. dtype .. ')', function()
      math.randomseed(8)
      local m = { random_list(6, -3, 3), random_list(6, -3, 3), random_list(6, -3, 3) }
      local t = fused.tensor(m, { dtype = dtype }):t() -- transposed: 6 x 3
      local seen, counts = {}, {}
      for _, row in ipairs(m) do
        for _, x in ipairs(row) do
          if not counts[x] then seen[#seen + 1] = x end
          counts[x] = (counts[x] or 0) + 1
        end
      end
      table.sort(seen)
      local rank = {}
      for k, x in ipairs(seen) do rank[x] = k end
      local values, inverse, count = fused.unique(t, { return_inverse = true, return_counts = true })
      assert.are.same(seen, values:totable())
      local want_counts, want_inverse = {}, {}
      for k, x in ipairs(seen) do want_counts[k] = counts[x] end
      for i, row in ipairs(t:totable()) do
        want_inverse[i] = {}
        for j, x in ipairs(row) do want_inverse[i][j] = rank[x] end
      end
      assert.are.same(want_counts, count:totable())
      assert.are.same(want_inverse, inverse:totable())
      -- the inverse picks t back out of the values
      assert.are.same(t:totable(), values:index_select(1, inverse:reshape(-1)):view(6, 3):totable())
      assert.are.same(seen, t:unique({ sorted = true }):totable())
      local _, only_counts = t:unique({ return_counts = true })
      assert.are.same(want_counts, only_counts:totable())
    end)
  end

  it('of one element, of bool, and of NaNs (each distinct)', function()
    assert.are.same({ 5 }, fused.unique(fused.tensor({ 5 })):totable())
    local v, c = fused.unique(fused.tensor({ true, false, true }), { return_counts = true })
    assert.are.same({ false, true }, v:totable())
    assert.are.same({ 1, 2 }, c:totable())
    local _, nan_counts = fused.unique(fused.tensor({ 0 / 0, 1, 0 / 0 }), { return_counts = true })
    assert.are.same({ 1, 1, 1 }, nan_counts:totable())
  end)

  it('refuses unknown options and flags that are not booleans', function()
    local t = fused.tensor({ 1, 2 })
    err(function() t:unique({ dim = 1 }) end, "unique: unknown option 'dim'")
    err(function() t:unique({ return_counts = 1 }) end, "unique: option 'return_counts' expected a boolean, got number")
  end)
end)

describe('nonzero and unique on cuda', function()
  helper.gpu_it('raise an error that says to move to the cpu', function()
    local t = fused.tensor({ 1, 0, 1 }, { device = 'cuda' })
    err(function() t:nonzero() end, "nonzero: not implemented for cuda tensors yet; call :to('cpu') first")
    err(function() t:unique() end, "unique: not implemented for cuda tensors yet; call :to('cpu') first")
    -- repeat and split are views and copies, which cuda has
    assert.are.same({ 1, 0, 1, 1, 0, 1 }, t:repeatTensor(2):cpu():totable())
    assert.are.same({ 1, 0 }, t:split(2)[1]:cpu():totable())
  end)
end)
