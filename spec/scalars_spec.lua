-- Lua numbers meeting integer tensors: a scalar written into an int64 or bool tensor must be
-- one of its values exactly, a comparison with one is exact (as PyTorch's), and an index or a
-- class target is an int64 tensor, never a float one converted on the way.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

local I64, BOOL = { dtype = 'int64' }, { dtype = 'bool' }
local function values(t) return t:to('float64'):totable() end

-- Each public way a number is written into a tensor of dtype: fn(t, value).
local WRITES = {
  fill_ = function(t, v) return t:fill_(v) end,
  full = function(t, v) return fused.full({ 2 }, v, { dtype = require('fused.dtype').dtype_names[t.scalar_type] }) end,
  ['t[i] = v'] = function(t, v) t[1] = v end,
  masked_fill = function(t, v) return t:masked_fill(fused.tensor({ true, false }), v) end,
  masked_fill_ = function(t, v) return t:masked_fill_(fused.tensor({ true, false }), v) end,
}

describe('a scalar written into an int64 tensor', function()
  it('is refused unless it is an integer in int64 range, naming the function and argument', function()
    for fn, write in pairs(WRITES) do
      local arg = fn == 't[i] = v' and "'v'" or "'value'"
      for v, shown in pairs({ [1e300] = '1e+300', [2 ^ 63] = '9.223372036854776e+18', [-2 ^ 64] = '-1.8446744073709552e+19',
                              [1 / 0] = 'inf', [-1 / 0] = '-inf', [0.5] = '0.5', [-2.25] = '-2.25', nan = 'nan' }) do
        if v == 'nan' then v = 0 / 0 end
        err(function() write(fused.zeros({ 2 }, I64), v) end, fn .. ': argument ' .. arg,
            "expected an integer in int64's range [-2^63, 2^63) for an int64 tensor, got " .. shown)
      end
    end
  end)

  it('is written exactly at the ends of the range', function()
    local t = fused.zeros({ 2 }, I64)
    t:fill_(-2 ^ 63)
    t[2] = 2 ^ 63 - 1024 -- the largest double below 2^63
    assert.are.same({ -2 ^ 63, 2 ^ 63 - 1024 }, values(t))
    assert.are.same({ 3, 0 }, values(fused.zeros({ 2 }, I64):masked_fill(fused.tensor({ true, false }), 3)))
  end)
end)

describe('a scalar written into a bool tensor', function()
  it('is 0, 1, true or false; anything else is refused (PyTorch would take 2 or 0.5 as true)', function()
    for fn, write in pairs(WRITES) do
      local arg = fn == 't[i] = v' and "'v'" or "'value'"
      for v, shown in pairs({ [0.5] = '0.5', [2] = '2', [-1] = '-1', [1 / 0] = 'inf', nan = 'nan' }) do
        if v == 'nan' then v = 0 / 0 end
        err(function() write(fused.zeros({ 2 }, BOOL), v) end, fn .. ': argument ' .. arg,
            'expected 0, 1, true or false for a bool tensor, got ' .. shown)
      end
    end
    local t = fused.zeros({ 2 }, BOOL)
    t[1] = true
    assert.are.same({ 1, 0 }, values(t))
    assert.are.same({ 1, 1 }, values(t:fill_(1)))
    assert.are.same({ 0, 0 }, values(t:fill_(false)))
    assert.are.same({ 1, 1 }, values(fused.full({ 2 }, true, BOOL)))
  end)
end)

describe('a float tensor takes a number rounded to its dtype', function()
  it('but not one that would round to an infinity (PyTorch refuses the overflow)', function()
    assert.are.same({ 0.5, 0.5 }, values(fused.full({ 2 }, 0.5)))
    assert.are.same({ 1 / 0, -1 / 0 }, values(fused.tensor({ 1 / 0, -1 / 0 })))
    helper.assert_error(function() fused.zeros({ 2 }):fill_(1e300) end,
                        "fill_: argument 'value' expected a number within float32's range, got 1e+300")
    assert.are.same({ 1e300 }, values(fused.zeros({ 1 }, { dtype = 'float64' }):fill_(1e300)))
  end)
end)

describe('comparing an integer tensor with a number', function()
  local devices = { 'cpu' }
  if helper.has_cuda() then devices[2] = 'cuda' end
  -- {0, 1, 2} against s: what each op gives, as PyTorch gives it.
  local cases = {
    { 1e300, { lt = { 1, 1, 1 }, le = { 1, 1, 1 }, gt = { 0, 0, 0 }, ge = { 0, 0, 0 }, eq = { 0, 0, 0 }, ne = { 1, 1, 1 } } },
    { 2 ^ 63, { lt = { 1, 1, 1 }, ge = { 0, 0, 0 }, eq = { 0, 0, 0 } } },
    { -1e300, { lt = { 0, 0, 0 }, gt = { 1, 1, 1 }, ne = { 1, 1, 1 } } },
    { 1 / 0, { lt = { 1, 1, 1 }, gt = { 0, 0, 0 } } },
    { -1 / 0, { le = { 0, 0, 0 }, ge = { 1, 1, 1 } } },
    { 0 / 0, { lt = { 0, 0, 0 }, le = { 0, 0, 0 }, gt = { 0, 0, 0 }, ge = { 0, 0, 0 }, eq = { 0, 0, 0 }, ne = { 1, 1, 1 } } },
    { 0.5, { lt = { 1, 0, 0 }, le = { 1, 0, 0 }, gt = { 0, 1, 1 }, ge = { 0, 1, 1 }, eq = { 0, 0, 0 }, ne = { 1, 1, 1 } } },
    { -0.5, { lt = { 0, 0, 0 }, le = { 0, 0, 0 }, gt = { 1, 1, 1 }, ge = { 1, 1, 1 }, eq = { 0, 0, 0 } } },
    { 1.5, { lt = { 1, 1, 0 }, le = { 1, 1, 0 }, gt = { 0, 0, 1 }, ge = { 0, 0, 1 } } },
    { 1, { lt = { 1, 0, 0 }, le = { 1, 1, 0 }, gt = { 0, 0, 1 }, ge = { 0, 1, 1 }, eq = { 0, 1, 0 }, ne = { 1, 0, 1 } } },
  }
  for _, device in ipairs(devices) do
    it('is exact for fractions, huge values, infinities and NaN, on ' .. device, function()
      local x = fused.tensor({ 0, 1, 2 }, { dtype = 'int64', device = device })
      for _, case in ipairs(cases) do
        for op, want in pairs(case[2]) do
          assert.are.same(want, values(x[op](x, case[1])), op .. ' ' .. tostring(case[1]))
        end
      end
      assert.are.same({ 0, 1, 1 }, values(fused.lt(0.5, x)), 'a number first')
    end)

    it('is exact for a bool tensor too, on ' .. device, function()
      local b = fused.tensor({ false, true }, { device = device })
      assert.are.same({ 0, 0 }, values(b:eq(0.5)))
      assert.are.same({ 1, 0 }, values(b:lt(0.5)))
      assert.are.same({ 0, 0 }, values(b:eq(2)))
      assert.are.same({ 1, 1 }, values(b:lt(2)))
      assert.are.same({ 0, 1 }, values(b:eq(1)))
      assert.are.same({ 1, 1 }, values(b:ge(-1)))
      assert.are.same({ 1, 1 }, values(b:ne(0 / 0)))
    end)
  end

  it('keeps int64 values beyond 2^53 apart from the nearest double', function()
    local x = fused.tensor({ 9007199254740993LL, -9223372036854775807LL - 1 }, I64)
    assert.are.same({ 0, 0 }, values(x:eq(2 ^ 53)))
    assert.are.same({ 1, 0 }, values(x:gt(2 ^ 53)))
    assert.are.same({ 0, 1 }, values(x:eq(-2 ^ 63)))
    assert.are.same({ 1, 0 }, values(x:gt(-2 ^ 63)))
  end)
end)

describe('an index or a class target', function()
  local weight = fused.tensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } })

  it('is an int64 tensor: a float one is refused, naming the argument', function()
    local f = fused.tensor({ 1, 2 })
    err(function() weight:index_select(1, f) end, "index_select: argument 'index' expected dtype int64, got float32")
    err(function() weight:gather(1, f:view(2, 1)) end, "gather: argument 'index' expected dtype int64, got float32")
    err(function() fused.nn.Embedding(3, 2):forward(f) end,
        "Embedding:forward: argument 'indices' expected dtype int64, got float32")
    err(function() fused.functional.embedding(f, weight) end,
        "embedding: argument 'indices' expected dtype int64, got float32")
    err(function() fused.nn.CrossEntropyLoss():forward(weight, fused.tensor({ 1, 2, 1 }, { dtype = 'float64' })) end,
        "CrossEntropyLoss:forward: argument 'targets' expected dtype int64, got float64")
    err(function() fused.functional.cross_entropy(weight, f:narrow(1, 1, 1):expand(3)) end,
        "cross_entropy: argument 'targets' expected dtype int64, got float32")
  end)

  it('may still be a Lua list of integers', function()
    assert.are.same({ { 5, 6 } }, weight:index_select(1, { 3 }):totable())
    assert.are.same({ 1, 2 }, fused.nn.Embedding(3, 2):forward({ 3 }):shape())
    local loss = fused.nn.CrossEntropyLoss():forward(weight, { 1, 2, 1 })
    assert.is_number(loss)
  end)
end)
