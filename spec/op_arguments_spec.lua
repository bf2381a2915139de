-- Every op of the op layer (fused.*, the Tensor methods) refuses an argument it does not take,
-- as Python refuses one: p:add_(g, -lr) must not compute p + g. Each op is called once as it
-- should be and once with one argument more, which must be an error naming that argument. The
-- list must name every op: a new op without a row fails here. add and sub take PyTorch's
-- {alpha = }; Torch7's value-first forms are errors naming the call to write.
local helper = require 'spec.helper'
local fused = helper.fused
local ops = require 'fused.ops'
local err = helper.assert_error

local x = fused.rand(2, 3):add_(0.5) -- positive: log, sqrt and pow take it
local v = fused.rand(3)
local m = fused.rand(3, 3)
local i64 = fused.tensor({ 2, 1 }, { dtype = 'int64' })
local mask = x:gt(0.8)
local function t() return x:clone() end

-- name = the arguments of a call that works, every parameter given (nil for one left out).
local calls = {
  add = { x, x, {} }, add_ = { t(), x, {} }, sub = { x, x, {} }, sub_ = { t(), x, {} },
  mul = { x, x, {} }, mul_ = { t(), x }, div = { x, x, {} }, div_ = { t(), x },
  pow = { x, 2, {} }, pow_ = { t(), 2 }, maximum = { x, x, {} }, maximum_ = { t(), x },
  minimum = { x, x, {} }, minimum_ = { t(), x },
  clamp = { x, 0, 1, {} }, clamp_ = { t(), 0, 1 },
  elu = { x, 1, {} }, elu_ = { t(), 1 }, d_elu = { x, 1, {} }, d_elu_ = { t(), 1 },
  eq = { x, x, {} }, ne = { x, x, {} }, lt = { x, x, {} }, le = { x, x, {} },
  gt = { x, x, {} }, ge = { x, x, {} },
  where = { mask, x, x, {} }, masked_fill = { x, mask, 0, {} }, masked_fill_ = { t(), mask, 0 },
  index_select = { x, 2, i64, {} }, gather = { x, 2, fused.ones({ 2, 1 }, { dtype = 'int64' }), {} },
  nonzero = { x, {} }, masked_select = { x, mask }, masked_scatter_ = { t(), mask, x },
  index_put_ = { t(), { i64 }, 0, false }, index_add_ = { t(), 1, i64, x },
  matmul = { m, m, {} }, addmm = { v, m, m, {} }, addmm_ = { m:clone(), m, m, {} },
  mv = { m, v, {} }, outer = { v, v, {} }, bmm = { m:view(1, 3, 3), m:view(1, 3, 3), {} },
  sum = { x, 1, {} }, prod = { x, 1, {} }, mean = { x, 1, {} }, var = { x, 1, {} },
  std = { x, 1, {} }, norm = { x, 2, 1, {} }, max = { x, 1, {} }, min = { x, 1, {} },
  argmax = { x, 1, {} }, argmin = { x, 1, {} }, sum_squares = { x },
  cumsum = { x, 1, {} }, cumprod = { x, 1, {} }, d_cumsum = { x, 1, {} },
  sort = { x, 1, false, {} }, topk = { x, 1, 2, true, true },
  softmax = { x, 2, {} }, log_softmax = { x, 2, {} }, logsumexp = { x, 2, false, {} },
  softmax_backward = { x, x, 2, {} }, log_softmax_backward = { x, x, 2, {} },
  logsumexp_backward = { fused.ones({ 2, 1 }), x, x:logsumexp(2, true), 2, true, {} },
  cat = { { x, x }, 1, {} }, stack = { { x, x }, 1, {} }, unique = { x, {} },
  clone = { x },
  scan = { x, x, v, {} }, scan_backward = { x, x, x, v, {} },
  linear_scan = { x:view(2, 1, 1, 1, 3), x:view(2, 1, 1, 3), v:view(1, 1, 3), {} },
  linear_scan_backward = { x:view(2, 1, 1, 3), x:view(2, 1, 1, 1, 3), x:view(2, 1, 1, 3),
                           v:view(1, 1, 3), {} },
}
-- The unary ops of C's list, (t, opts) and in place (t).
for name in pairs(ops) do
  if not calls[name] and ops[name .. '_'] and not name:find('_$') then
    calls[name], calls[name .. '_'] = { x, {} }, { t() }
  end
end
-- Functions of sizes (and options) check their own arguments: what follows is refused there.
local varargs = {
  ['repeat'] = { x, { 1, 2 }, {} }, repeatTensor = { x, { 1, 2 }, {} },
  sum_to_size = { x, { 1, 3 } },
}

local EXTRA = 'one too many'

describe('every op refuses an argument it does not take', function()
  it('the list names every op', function()
    for name in pairs(ops) do
      assert.truthy(calls[name] or varargs[name], 'no row for ' .. name)
    end
  end)

  for _, name in ipairs(helper.sorted_keys(calls)) do
    it(name, function()
      local args = calls[name]
      local n = table.maxn(args)
      assert(pcall(ops[name], unpack(args, 1, n)), name .. ' with its own arguments')
      args = { unpack(args, 1, n) }
      args[n + 1] = EXTRA
      err(function() ops[name](unpack(args, 1, n + 1)) end,
          name .. ': takes (', 'got an extra argument ' .. (n + 1) .. ': the string "' .. EXTRA .. '"')
    end)
  end

  it('as a method too, and in 16-bit, where the op widens its operands', function()
    local h = x:bfloat16()
    err(function() return x:tanh({}, EXTRA) end, 'tanh: takes (t, opts), got an extra argument 3')
    err(function() return h:mul_(h, 2) end, 'mul_: takes (a, b), got an extra argument 3: the number 2')
    err(function() return h:sum(1, {}, 7) end, 'sum: takes (t, dim, opts), got an extra argument 4: the number 7')
  end)

  it('the functions of sizes, after the options', function()
    err(function() return x['repeat'](x, { 1, 2 }, {}, EXTRA) end, 'repeat', 'got 2 arguments after them')
    err(function() return x:sum_to_size({ 1, 3 }, EXTRA) end,
        'sum_to_size: takes (grad, shape), got an extra argument after the shape')
    err(function() return fused.zeros({ 2 }, {}, EXTRA) end, 'zeros', 'got 2 arguments after them')
    err(function() return fused.arange(1, 5, 1, {}, EXTRA) end, 'arange', 'got an extra argument 5 after it')
  end)

  it("the fills, copies and draws, by their PyTorch and Torch7 names (errors name PyTorch's)", function()
    for _, name in ipairs({ 'fill_', 'fill' }) do
      err(function() t()[name](t(), 1, EXTRA) end, 'fill_: takes (t, value), got an extra argument 3')
    end
    for _, name in ipairs({ 'zero_', 'zero' }) do
      err(function() t()[name](t(), EXTRA) end, 'zero_: takes (t), got an extra argument 2')
    end
    err(function() x:contiguous(EXTRA) end, 'contiguous: takes (t), got an extra argument 2')
    for _, name in ipairs({ 'copy_', 'copy' }) do
      err(function() t()[name](t(), x, EXTRA) end, 'copy_: takes (', 'got an extra argument 3')
    end
    for _, name in ipairs({ 'uniform_', 'uniform', 'normal_', 'normal' }) do
      err(function() t()[name](t(), 0, 1, EXTRA) end, name:gsub('_$', '') .. '_: takes (', 'got an extra argument 4')
    end
    err(function() x:clone(EXTRA) end, 'clone: takes (t), got an extra argument 2')
  end)

  it('the factories of fixed arguments and manual_seed', function()
    err(function() fused.full({ 2 }, 1, {}, EXTRA) end, 'full: takes (shape, value, opts), got an extra argument 4')
    err(function() fused.tensor({ 1 }, {}, EXTRA) end, 'tensor: takes (data, opts), got an extra argument 3')
    err(function() fused.manual_seed(1, EXTRA) end, 'manual_seed: takes (seed), got an extra argument 2')
  end)

  it('the process settings: threads, vector path and GEMM provider', function()
    local threads = fused.get_num_threads()
    err(function() fused.set_gemm('openblas', EXTRA) end, 'set_gemm: takes (name), got an extra argument 2')
    err(function() fused.set_num_threads(1, EXTRA) end, 'set_num_threads: takes (n), got an extra argument 2')
    err(function() fused.get_num_threads(EXTRA) end, 'get_num_threads: takes (), got an extra argument 1')
    err(function() fused.set_cpu_capability('default', EXTRA) end,
        'set_cpu_capability: takes (name), got an extra argument 2')
    assert.are.equal(threads, fused.get_num_threads())
  end)

  it('a trailing nil is an argument left out, as Lua has it', function()
    assert.are.equal(6, x:add(x, nil, nil):size(2) * 2)
  end)
end)

describe("add and sub take PyTorch's alpha", function()
  local a, b = fused.tensor({ 1, 2 }, { dtype = 'float64' }), fused.tensor({ 10, 20 }, { dtype = 'float64' })
  local function same(want, got) assert.are.same(want, got:totable()) end

  it('a + alpha * b and a - alpha * b, with out and in place', function()
    same({ -4, -8 }, a:add(b, { alpha = -0.5 }))
    same({ 6, 12 }, fused.sub(a, b, { alpha = -0.5 }))
    local out = fused.zeros({ 2 }, { dtype = 'float64' })
    assert.are.equal(out, fused.add(a, b, { alpha = 2, out = out }))
    same({ 21, 42 }, out)
    local p = a:clone()
    same({ -4, -8 }, p:add_(b, { alpha = -0.5 }))
    same({ -2, -4 }, p:sub_(b, { alpha = -0.2 }))
    same({ 3, 4 }, a:add(2, { alpha = 1 }))
    same({ 21, 22 }, a:add(10, { alpha = 2 }))
  end)

  it('a float alpha with integers is an error, as PyTorch', function()
    local n = fused.tensor({ 1, 2 }, { dtype = 'int64' })
    same({ 3, 6 }, n:add(n, { alpha = 2 }))
    err(function() n:add(n, { alpha = 0.5 }) end, "add: option 'alpha' expected an integer")
    err(function() a:add(b, { alpha = 'x' }) end, "add: argument 'alpha' expected a number, got string")
    err(function() a:add_(b, { alpha = 1, out = a }) end, "add_: unknown option 'out'")
  end)

  it('a number after the tensor names the alpha option', function()
    local p = a:clone()
    err(function() p:add_(b, -0.1) end,
        'add_: got a number (-0.1) after the tensor: for x + alpha * y write x:add_(y, {alpha = -0.1})')
    err(function() p:sub(b, 2) end, 'sub: got a number (2) after the tensor')
    same(a:totable(), p) -- untouched
  end)

  it("Torch7's value-first forms name the native call", function()
    local p = a:clone()
    err(function() p:add_(-0.1, b) end,
        "add_: (value, tensor) is Torch7's x:add(value, y), x = x + value * y: write x:add_(y, {alpha = -0.1})")
    err(function() p:add(2, b) end, "x:add_(y, {alpha = 2}), or x:add(y, {alpha = 2}) for a new tensor")
    err(function() p:sub_(2, b) end, "x:sub_(y, {alpha = 2})")
    err(function() p:add(a, b) end, "add: (tensor, tensor) is Torch7's res:add(x, y), res = x + y: write "
                                    .. "fused.add(x, y, {out = res})")
    err(function() p:sub(1, 2) end, "sub: (number, number) is Torch7's x:sub(i, j), rows i to j of x: "
                                    .. 'write x:narrow(1, 1, 2 - 1 + 1)')
    same(a:totable(), p)
  end)
end)
