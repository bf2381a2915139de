-- What a sweep of the op layer with wrong kinds, dtypes, 0-d and empty tensors and bad options
-- found naming another function (matmul for mv, unsqueeze and cat for stack, sub for
-- logsumexp_backward, max for argmax, view and tensor for index lists), raising at no line or a
-- line inside lua/fused/, or computing something else (addmm_ resizing self); each error must
-- name the op called and be raised at the caller's line, on every device.
local helper = require 'spec.helper'
local fused = helper.fused

local HERE = debug.getinfo(1, 'S').short_src
local devices = { 'cpu' }
if helper.has_cuda() then devices[2] = 'cuda' end

-- f() raises at this file, its message holding each fragment.
local function err(f, ...)
  local ok, e = pcall(function() local r = f(); return r end)
  assert(not ok, 'expected an error, got none')
  e = tostring(e)
  assert.are.equal(HERE, e:match('^(.-):%d+: '), 'raised away from its caller: ' .. e)
  for _, fragment in ipairs({ ... }) do
    assert(e:find(fragment, 1, true), string.format('error %q lacks %q', e, fragment))
  end
end

for _, device in ipairs(devices) do
  local F32, F64 = { device = device }, { dtype = 'float64', device = device }
  local I64, BOOL = { dtype = 'int64', device = device }, { dtype = 'bool', device = device }

  describe('on ' .. device, function()
    local x = fused.ones({ 2, 3 }, F32)

    it('broadcasting errors are raised at the caller', function()
      err(function() return x:lt(fused.ones({ 3, 3 }, F32)) end, "lt: argument 'b' of shape [3, 3] does not broadcast")
      err(function() return x:mul_(fused.ones({ 0 }, F32)) end, "mul_: argument 'b' of shape [0]")
      err(function() return fused.where(x:gt(0), x, fused.ones({ 3, 3 }, F32)) end, "where: argument 'b'")
      err(function() return x:masked_fill(fused.tensor(true, BOOL):expand(3, 3), 0) end, 'masked_fill:')
      err(function() return x:sort(1, false, { out = 'x' }) end, "sort: option 'out' expected a list")
    end)

    it('two numbers to pow are an error, not an index of a number', function()
      err(function() return fused.pow(2, 3) end, "pow: expected a tensor for 'a' or 'b', got two numbers")
    end)

    it('mv, outer and bmm name themselves, not matmul', function()
      local m, v = fused.ones({ 3, 3 }, F32), fused.ones({ 3 }, F32)
      err(function() return fused.mv(m, fused.ones({ 2 }, F32)) end, "mv: argument 'v' expected 3 elements")
      err(function() return fused.mv(m, fused.ones({ 3 }, F64)) end, "mv: argument 'v' expected dtype float32 (as 'a'), got float64")
      err(function() return fused.mv(fused.ones({ 3, 3 }, I64), v) end, "mv: argument 'a' expected a floating dtype")
      err(function() return fused.outer(v, fused.ones({ 3 }, I64)) end, "outer: argument 'b' expected dtype float32 (as 'a'), got int64")
      err(function() return fused.bmm(m:view(1, 3, 3), fused.ones({ 1, 2, 3 }, F32)) end,
          "bmm: argument 'b' expected 3 rows in each matrix")
      err(function() return fused.bmm(m:view(1, 3, 3), fused.ones({ 1, 3, 3 }, F64)) end, "bmm: argument 'b' expected dtype float32")
    end)

    it("addmm and addmm_ name their operands, not matmul's out", function()
      local m, d = fused.ones({ 2, 2 }, F32), fused.ones({ 2, 2 }, F64)
      err(function() return m:clone():addmm_(d, d) end, "addmm_: argument 'a' expected dtype float32 (as 'self'), got float64")
      err(function() return fused.addmm(fused.ones({ 2 }, F32), d, d) end,
          "addmm: argument 'bias' expected dtype float64 (as 'a'), got float32")
      err(function() return m:clone():addmm_(m, m, { alpha = 'x' }) end, "addmm_: option 'alpha' expected a number, got string")
    end)

    it('addmm_ keeps self, as every in-place op', function()
      local t = fused.ones({ 3 }, F32)
      err(function() return t:addmm_(fused.ones({ 3, 3 }, F32), fused.ones({ 3, 3 }, F32)) end,
          "addmm_: the result's shape [3, 3] differs from 'self''s [3]")
      assert.are.same({ 3 }, t:shape())
    end)

    it('stack names itself for its dim, its shapes and its out', function()
      err(function() return fused.stack({ x, x }, 4) end, "stack: argument 'dim' expected a dim in 1..3, got 4")
      err(function() return fused.stack({ x, x }, 'x') end, "stack: argument 'dim'")
      err(function() return fused.stack({ x, fused.ones({ 3, 2 }, F32) }) end,
          "stack: argument 'tensors[2]' expected shape [2, 3] (as tensors[1]), got [3, 2]")
      err(function() return fused.stack({ x, x }, 1, { foo = 1 }) end, "stack: unknown option 'foo'")
      err(function() return fused.stack({ x, x }, 1, { out = fused.ones({ 1 }, I64) }) end, "stack: argument 'out'")
      err(function() return fused.stack({ x, x:double() }) end, "stack: argument 'tensors[2]' expected dtype float32 (as 'tensors[1]'), got float64")
      assert.are.same({ 2, 3, 2 }, fused.stack({ x, x }, -1):shape())
    end)

    it('logsumexp_backward names itself for its out and shapes', function()
      local y = x:logsumexp(2, true)
      err(function() return fused.logsumexp_backward(y, x, y, 2, true, { foo = 1 }) end,
          "logsumexp_backward: unknown option 'foo'")
      err(function() return fused.logsumexp_backward(y, x, y, 2, true, { out = fused.ones({ 1 }, I64) }) end,
          "logsumexp_backward: argument 'out'")
      err(function() return fused.logsumexp_backward(y, x, x, 2, true) end,
          "logsumexp_backward: argument 'output' expected logsumexp's shape [2, 1] or [2], got [2, 3]")
      err(function() return fused.logsumexp_backward(y:double(), x, y, 2, true) end,
          "logsumexp_backward: argument 'grad_output' expected dtype float32 (as 'input')")
      local g = fused.logsumexp_backward(fused.ones({ 2 }, F32), x, y:view(2), 2, false)
      helper.assert_close(g, (x - y):exp(), 1e-6, 'the gradient, dim dropped')
    end)

    it('argmax and argmin name themselves for bool and a reduced dim of size 0', function()
      for _, fn in ipairs({ 'argmax', 'argmin', 'max', 'min' }) do
        err(function() return fused[fn](fused.ones({ 2, 3 }, BOOL), 1) end,
            fn .. ": argument 'input' expected a number dtype (float32, float64 or int64), got bool")
        err(function() return fused[fn](fused.ones({ 0, 3 }, F32), 1) end,
            fn .. ": argument 'input' expected a non-zero size in dim 1 (the dim reduced), got 0")
      end
    end)

    it('an index given as a list names the op and its argument', function()
      err(function() return x:index_select(2, { foo = 1 }) end,
          "index_select: argument 'index' expected an int64 tensor or a list of integers, got a table with the key 'foo'")
      err(function() return x:gather(2, { { 1 }, { 0.5 } }) end, "gather: argument 'index' expected an int64 tensor or a list of integers")
      assert.are.same({ { 1 }, { 1 } }, x:gather(2, { { 1 }, { 2 } }):totable())
    end)

    it('sum_to_size names its shape', function()
      err(function() return x:sum_to_size({ foo = 1 }) end, "sum_to_size: argument 'shape' expected a list of integers >= 0")
      err(function() return x:sum_to_size({ 1, 3 }, 'more') end, 'sum_to_size: takes (grad, shape), got an extra argument')
    end)
  end)
end
