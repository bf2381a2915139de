-- index_put_ (PyTorch's, with a list of int64 index tensors, set or accumulate) and index_add_
-- (along a dim), indices counted from 1 as index_select's and gather's, against plain-Lua loops.
local helper = require 'spec.helper'
local fused = helper.fused

local long = { dtype = 'int64' }

describe('index_put_', function()
  it('sets t[i[k], j[k]] = values[k] with an index per dim, the last of repeats winning', function()
    for _, dtype in ipairs({ 'float32', 'float64', 'int64' }) do
      local opts = { dtype = dtype }
      local t = fused.arange(1, 13, opts):view(3, 4)
      local ref = t:totable()
      local i, j, v = { 3, 1, 2, 3 }, { 4, 1, 2, 4 }, { 10, 20, 30, 40 }
      assert.are.equal(t, t:index_put_({ fused.tensor(i, long), fused.tensor(j, long) }, fused.tensor(v, opts)))
      for k = 1, #i do ref[i[k]][j[k]] = v[k] end
      assert.are.same(ref, t:totable())
    end
  end)

  it('accumulate adds every value, repeated positions included', function()
    local t = fused.ones(3, 4, { dtype = 'float64' })
    local ref = t:totable()
    local i, j, v = { 3, 1, 3, 3 }, { 4, 1, 4, 2 }, { 0.5, 2, 0.25, -1 }
    t:index_put_({ i, j }, fused.tensor(v, { dtype = 'float64' }), true)
    for k = 1, #i do ref[i[k]][j[k]] = ref[i[k]][j[k]] + v[k] end
    assert.are.same(ref, t:totable())
  end)

  it('fewer indices than dims put whole slices; values broadcast; a strided t is written', function()
    local base = fused.zeros(4, 3, { dtype = 'float64' })
    local t = base:t() -- 3 x 4, a view
    t:index_put_({ { 3, 1 } }, fused.tensor({ { 1, 2, 3, 4 }, { 5, 6, 7, 8 } }, { dtype = 'float64' }))
    assert.are.same({ { 5, 6, 7, 8 }, { 0, 0, 0, 0 }, { 1, 2, 3, 4 } }, t:totable())
    assert.are.same(t:totable(), base:t():totable())
    t:index_put_({ { 2 } }, fused.tensor({ 9 }, { dtype = 'float64' })) -- one value for the row
    assert.are.same({ 9, 9, 9, 9 }, t[2]:totable())
    t:index_put_({ { 1, 1 }, { 2, 3 } }, -1)
    assert.are.same({ 5, -1, -1, 8 }, t[1]:totable())
    t:index_put_({ { 3 } }, 1, true)
    assert.are.same({ 2, 3, 4, 5 }, t[3]:totable())
  end)

  it('errors name the index tensor, the value and the size', function()
    local t = fused.zeros(2, 3)
    helper.assert_error(function() t:index_put_({ { 1, 2 }, { 1, 4 } }, 0) end, 'index_put_spec.lua:', -- the caller's line
                        "index_put_: argument 'indices[2]' expected integers 1 to 3, got 4 at position 2")
    helper.assert_error(function() t:index_put_({ { 0 } }, 0) end,
                        "index_put_: argument 'indices[1]' expected integers 1 to 2, got 0 at position 1")
    helper.assert_error(function() t:index_put_({ fused.tensor({ 1 }) }, 0) end, 'index_put_spec.lua:',
                        "index_put_: argument 'indices[1]' expected dtype int64, got float32")
    helper.assert_error(function() t:index_put_({ { 1, 2 }, { 1 } }, 0) end,
                        "index_put_: argument 'indices[2]'")
    helper.assert_error(function() t:index_put_({ { 1 }, { 1 }, { 1 } }, 0) end,
                        "index_put_: argument 'indices' expected a list of 1 to 2 index tensors, got {table, table, table}")
    helper.assert_error(function() t:index_put_({ { 1, 2 } }, fused.zeros(2, 2)) end,
                        "index_put_: argument 'values' expected a shape that broadcasts to [2, 3] (the indices' length, then t's sizes they leave), got [2, 2]")
    helper.assert_error(function() t:index_put_({ { 1 } }, fused.zeros(3, { dtype = 'float64' })) end,
                        "index_put_: argument 'values' expected dtype float32")
    helper.assert_error(function() t:index_put_({ { 1 } }, 0, 1) end,
                        "index_put_: argument 'accumulate' expected a boolean, got number")
    helper.assert_error(function() fused.zeros(1):expand(3):index_put_({ { 1 } }, 0) end, 'index_put_', "'self'")
  end)
end)

describe('index_add_', function()
  it('adds source[..., k, ...] into t[..., index[k], ...] along dim, repeats adding up', function()
    for _, dim in ipairs({ 1, 2, -1 }) do
      local t = fused.arange(1, 25, { dtype = 'float64' }):view(2, 3, 4)
      local ref = t:totable()
      local index = { 2, 1, 2, 2 }
      local d = dim < 0 and 3 + dim + 1 or dim
      local shape = t:shape()
      shape[d] = #index
      local source = fused.randn(shape, { dtype = 'float64' })
      local src = source:totable()
      t:index_add_(dim, fused.tensor(index, long), source)
      for a = 1, shape[1] do
        for b = 1, shape[2] do
          for c = 1, shape[3] do
            local at = { a, b, c }
            at[d] = index[at[d]]
            ref[at[1]][at[2]][at[3]] = ref[at[1]][at[2]][at[3]] + src[a][b][c]
          end
        end
      end
      helper.assert_close(t, fused.tensor(ref, { dtype = 'float64' }), 1e-12, 'index_add_ dim ' .. dim)
    end
  end)

  it('is index_select\'s adjoint: <x:index_select(d, i), y> = <x, zeros:index_add_(d, i, y)>', function()
    local x = fused.randn(3, 5, { dtype = 'float64' })
    local index = { 5, 1, 5, 3 }
    local y = fused.randn(3, 4, { dtype = 'float64' })
    local lhs = (x:index_select(2, index) * y):sum()
    local rhs = (x * fused.zeros(3, 5, { dtype = 'float64' }):index_add_(2, index, y)):sum()
    assert.is_true(math.abs(lhs - rhs) < 1e-10, lhs .. ' vs ' .. rhs)
  end)

  it('writes a strided t and int64 exactly; errors name the index and the size', function()
    local base = fused.zeros(3, 2, long)
    base:t():index_add_(2, { 3, 3 }, fused.tensor({ { 1, 2 }, { 3, 4 } }, long))
    assert.are.same({ { 0, 0 }, { 0, 0 }, { 3, 7 } }, base:totable())
    local t = fused.zeros(2, 3)
    helper.assert_error(function() t:index_add_(2, { 4 }, fused.zeros(2, 1)) end,
                        "index_add_: argument 'index' expected integers 1 to 3, got 4 at position 1")
    helper.assert_error(function() t:index_add_(3, { 1 }, fused.zeros(2, 1)) end,
                        "index_add_: argument 'dim' expected a dim in 1..2, got 3")
    helper.assert_error(function() t:index_add_(2, { 1 }, fused.zeros(2, 2)) end,
                        "index_add_: argument 'source' expected shape [2, 1]")
    helper.assert_error(function() t:index_add_(2, fused.tensor({ 1 }), fused.zeros(2, 1)) end,
                        "index_add_: argument 'index' expected dtype int64, got float32")
  end)
end)

describe('index_put_ and index_add_ on cuda', function()
  it('raise an error that says cuda lacks them, for every dtype', function()
    if not helper.has_cuda() then return end
    for _, dtype in ipairs({ 'float32', 'float64', 'int64', 'bool' }) do
      local t = fused.zeros(2, 3, { dtype = dtype, device = 'cuda' })
      helper.assert_error(function() t:index_put_({ { 1 } }, 0) end, 'index_put_: not implemented for cuda tensors yet; call :to(\'cpu\') first')
      helper.assert_error(function() t:index_add_(1, { 1 }, fused.zeros(1, 3, { dtype = dtype, device = 'cuda' })) end,
                          'index_add_: not implemented for cuda tensors yet; call :to(\'cpu\') first')
    end
  end)
end)
