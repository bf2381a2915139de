-- Integer and bool tensors compute, each result checked against plain Lua on every device:
-- int64 arithmetic stays int64 (division is true division, into float32, as PyTorch's `/`),
-- sums of int64 are int64 and sums of bool count, and a binary op's operands are promoted as
-- PyTorch promotes them (bool < int64 < float32 < float64; a fractional number makes float32).
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

local devices = { 'cpu' }
if helper.has_cuda() then devices[2] = 'cuda' end

-- Plain Lua: f over the elements of lists xs and ys (ys may be a number).
local function map(f, xs, ys)
  local r = {}
  for i = 1, #xs do r[i] = f(xs[i], type(ys) == 'table' and ys[i] or ys) end
  return r
end
local function total(xs)
  local s = 0
  for _, x in ipairs(xs) do s = s + x end
  return s
end

for _, device in ipairs(devices) do
  local I64 = { dtype = 'int64', device = device }
  local F32, F64 = { dtype = 'float32', device = device }, { dtype = 'float64', device = device }
  local BOOL = { dtype = 'bool', device = device }
  local xs, ys = { -7, -2, 0, 3, 9 }, { 2, 5, -3, 4, -1 }
  local function int(list) return fused.tensor(list, I64) end
  local function check(t, dtype, want)
    assert.are.equal(dtype, t.dtype)
    assert.are.equal(device, t.device)
    assert.are.same(want, t:cpu():totable())
  end

  describe('int64 arithmetic on ' .. device, function()
    it('arange(5) * 2 is int64', function()
      check(fused.arange(5, { device = device }) * 2, 'int64', { 0, 2, 4, 6, 8 })
    end)

    it('adds, subtracts, multiplies, takes max and min, elementwise and with numbers', function()
      local a, b = int(xs), int(ys)
      check(a + b, 'int64', map(function(x, y) return x + y end, xs, ys))
      check(a - b, 'int64', map(function(x, y) return x - y end, xs, ys))
      check(a * b, 'int64', map(function(x, y) return x * y end, xs, ys))
      check(fused.maximum(a, b), 'int64', map(math.max, xs, ys))
      check(fused.minimum(a, b), 'int64', map(math.min, xs, ys))
      check(10 - a, 'int64', map(function(x) return 10 - x end, xs))
      check(a:pow(2), 'int64', map(function(x) return x * x end, xs))
      check(a:add_(1), 'int64', map(function(x) return x + 1 end, xs))
    end)

    it('broadcasts and walks strided operands', function()
      local m = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, I64)
      check(m + fused.tensor({ 10, 20, 30 }, I64), 'int64', { { 11, 22, 33 }, { 14, 25, 36 } })
      check(m:t() * 2, 'int64', { { 2, 8 }, { 4, 10 }, { 6, 12 } })
    end)

    it('is exact beyond float64 integers', function()
      local big = int({ 2 ^ 53 }) + 1
      assert.are.equal(2 ^ 53 + 1, tonumber(big[1] - 2 ^ 53) + 2 ^ 53)
      assert.are.equal(1, (big - 2 ^ 53):item())
    end)

    it('negates and takes abs; the other unary ops want a floating tensor', function()
      check(-int(xs), 'int64', map(function(x) return -x end, xs))
      check(int(xs):abs(), 'int64', map(math.abs, xs))
      err(function() int(xs):exp() end, "exp: argument 'input' expected a floating dtype",
          'got int64')
    end)

    it('divides as PyTorch\'s `/`: true division into float32', function()
      local q = int(xs) / int(ys)
      assert.are.equal('float32', q.dtype)
      local want = fused.tensor(map(function(x, y) return x / y end, xs, ys))
      helper.assert_close(q, want, 1e-7, 'a / b')
      check(int({ 1, 3 }) / 2, 'float32', { 0.5, 1.5 })
      check(6 / int({ 4, 3 }), 'float32', { 1.5, 2 })
    end)

    it('compares with tensors and numbers into bool', function()
      check(int(xs):gt(0), 'bool', map(function(x) return x > 0 end, xs))
      check(int(xs):le(int(ys)), 'bool', map(function(x, y) return x <= y end, xs, ys))
    end)
  end)

  describe('integer reductions on ' .. device, function()
    it('arange(10):sum() is 45, an int64 sum', function()
      assert.are.equal(45, fused.arange(10, { device = device }):sum())
      check(fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, I64):sum(2), 'int64', { { 6 }, { 15 } })
    end)

    it('a bool mask sums to its count, in int64', function()
      local x = int(xs)
      assert.are.equal(2, x:gt(0):sum())
      local mask = fused.tensor({ { true, false, true }, { true, true, true } }, BOOL)
      check(mask:sum(2), 'int64', { { 2 }, { 3 } })
    end)

    it('max, min and prod of int64', function()
      local x = int(xs)
      assert.are.equal(9, x:max())
      assert.are.equal(-7, x:min())
      assert.are.equal(1, x:argmin())
      assert.are.equal(-7 * -2 * 3 * 9 * 0, x:prod())
      assert.are.equal(total(xs), x:sum())
    end)
  end)

  describe('type promotion of binary ops on ' .. device, function()
    it('int64 with float32 gives float32', function()
      check(int({ 1, 2 }) + fused.tensor({ 0.5, 0.25 }, F32), 'float32', { 1.5, 2.25 })
      check(fused.tensor({ 0.5, 0.25 }, F32) * int({ 2, 4 }), 'float32', { 1, 1 })
    end)

    it('bool with int64 gives int64, and bool with bool int64 too', function()
      local mask = fused.tensor({ true, false, true }, BOOL)
      check(mask + int({ 1, 2, 3 }), 'int64', { 2, 2, 4 })
      check(mask + mask, 'int64', { 2, 0, 2 })
      check(mask * 3, 'int64', { 3, 0, 3 })
    end)

    it('an int64 tensor with a fractional number gives float32', function()
      check(int({ 1, 2 }) * 0.5, 'float32', { 0.5, 1 })
      check(1.5 + int({ 1, 2 }), 'float32', { 2.5, 3.5 })
    end)

    it('float32 with float64 gives float64; a float self takes an int64 operand', function()
      check(fused.tensor({ 1 }, F32) + fused.tensor({ 2 }, F64), 'float64', { 3 })
      local f = fused.tensor({ 1.5, 2.5 }, F32)
      check(f:add_(int({ 1, 2 })), 'float32', { 2.5, 4.5 })
    end)

    it('an in-place op keeps its dtype: an int64 self refuses a float result', function()
      err(function() int({ 1 }):add_(0.5) end,
          "add_: the result's dtype float32 can't be cast to 'self''s int64")
      err(function() int({ 1 }):div_(2) end,
          "div_: the result's dtype float32 can't be cast to 'self''s int64")
    end)
  end)
end

describe('errors of integer ops', function()
  it('name the user\'s argument, never an out the op made', function()
    local ok, e = pcall(function() return fused.tensor({ true }):exp() end)
    assert.is_false(ok)
    assert.is_nil(tostring(e):find("'out'", 1, true))
    err(function() fused.tensor({ true }):exp() end,
        "exp: argument 'input' expected a floating dtype")
    local ones = fused.ones({ 2, 2 }, { dtype = 'int64' })
    err(function() fused.matmul(ones, ones) end,
        "matmul: argument 'a' expected a floating dtype (float32 or float64), got int64")
  end)
end)
