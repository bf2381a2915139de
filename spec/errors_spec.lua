-- Bad input to the foundation's public functions: each a Lua error naming the function, the
-- argument, what was expected and what came; never a crash.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

-- A tensor that claims to live on the GPU, to reach the device checks without one: a view of
-- t (its own storage reference, released with it) relabelled.
local function on_cuda(t)
  local fake = ffi.new('fused_tensor')
  assert(fused.C.fused_tensor_view(fake, t, t.ndim, t.sizes, t.strides, 0) == 0)
  helper.poke(fake, 'device_type', 1)
  return fake
end

describe('bad input', function()
  local a = fused.zeros({ 2, 3 })
  local a64 = fused.zeros({ 2, 3 }, { dtype = 'float64' })

  it('shapes: negative, fractional, too many dims, not a list', function()
    err(function() fused.ones({ 2, -1 }) end, 'ones', "'shape'", 'from 0', 'got -1')
    err(function() fused.empty({ 1.5 }) end, 'empty', "'shape'", 'got 1.5')
    err(function() fused.rand({ 1, 1, 1, 1, 1, 1, 1, 1, 1 }) end, 'rand', '0 to 8 sizes', 'got 9')
    err(function() fused.randn('big') end, 'randn', "'shape'", 'got string')
  end)

  it('shapes: holes, infinities and sizes past 2^53 are not dropped or wrapped', function()
    err(function() fused.zeros({ 2, nil, 3 }) end, 'zeros', "'shape'", 'list of integers >= 0', 'got {2, nil, 3}')
    err(function() fused.ones({ [2] = 3 }) end, 'ones', "'shape'", 'got {nil, 3}')
    err(function() fused.empty({ 2, n = 3 }) end, 'empty', "'shape'", "key 'n'")
    err(function() fused.zeros({ 2, math.huge }) end, 'zeros', "'shape'", 'got inf at position 2')
    err(function() fused.zeros({ 0 / 0 }) end, 'zeros', "'shape'", 'got nan at position 1')
    err(function() fused.zeros({ 2 ^ 53 }) end, 'zeros', "'shape'", 'below 2^53')
    err(function() fused.zeros({ '2' }) end, 'zeros', "'shape'", 'got string at position 1')
    err(function() fused.zeros({ 2, 3 }):view(2, nil, 3) end, 'view', "'shape'", 'got {2, nil, 3}')
    err(function() fused.zeros({ 2, 3 }):view('6') end, 'view', "'shape'", 'got string')
    err(function() fused.zeros({ 2, 3 }):view(4, -1) end, 'view', 'cannot hold 6 elements')
  end)

  it('data: holes and irregular empty lists in fused.tensor', function()
    err(function() fused.tensor({ 1, nil, 3 }) end, 'tensor', "'data'", 'without holes at data,', 'got {1, nil, 3}')
    err(function() fused.tensor({ { 1, 2 }, { 3, nil, 5 } }) end, 'tensor', 'at data[2]', 'got {3, nil, 5}')
    err(function() fused.tensor({ {}, { 1 } }) end, 'tensor', 'not regular', 'at data[2]')
    err(function() fused.tensor({ 1, {} }) end, 'tensor', 'a number at data[2]')
    err(function() fused.tensor({ 1, 2, x = 3 }) end, 'tensor', "key 'x'")
  end)

  it('manual_seed: integers in [0, 2^53], or 64-bit cdata for the rest', function()
    for _, bad in ipairs({ 2 ^ 64, 2 ^ 53 + 2, math.huge, 0 / 0, -1, 1.5, '1', -1LL }) do
      err(function() fused.manual_seed(bad) end, 'manual_seed', "'seed'", 'integer in [0, 2^53]')
    end
    local function draw(seed) fused.manual_seed(seed); return fused.rand({ 4 }, { dtype = 'float64' }):totable() end
    assert.are.same(draw(2 ^ 53), draw(2ULL ^ 53))
    assert.are.same(draw(7), draw(7LL))
    assert.are_not.same(draw(0), draw(0xFFFFFFFFFFFFFFFFULL))
    assert.are.same(draw(2 ^ 52 + 3), draw(4503599627370499ULL)) -- what data/stream.lua gives
  end)

  it('to: a nil device or dtype keeps the tensor\'s, and names are checked', function()
    assert.are.equal('float64', a:to(nil, 'float64').dtype)
    assert.are.equal('float64', a:to('float64', nil).dtype)
    assert.are.equal('float64', a:to('cpu', 'float64').dtype)
    assert.are.equal(a, a:to(nil, nil))
    err(function() a:to(nil, 'float8') end, 'to', 'argument 2', "got 'float8'")
    err(function() a:to('float64', 'float32') end, 'to', 'two dtypes')
    err(function() a:to('cpu', 'cuda') end, 'to', 'two devices')
    err(function() a:to({ dtype = 'float64' }) end, 'to', 'argument 1', 'got table')
  end)

  it('options: unknown dtype or device', function()
    err(function() fused.zeros({ 2 }, { dtype = 'int8' }) end, 'zeros', "'dtype'", 'int8')
    err(function() fused.zeros({ 2 }, { device = 'tpu' }) end, 'zeros', "'device'", 'tpu')
    err(function() fused.zeros({ 2 }, 'float64') end, 'zeros', "'opts'", 'string')
    err(function() a:to('float8') end, 'to', 'float8')
    err(function() fused.zeros({ 2 }, { dtype = false }) end, 'zeros', "'dtype'", 'got false')
    err(function() fused.zeros({ 2 }, { dtype = 1 }) end, 'zeros', "'dtype'", 'got 1')
  end)

  it('nil or a non-tensor where a tensor goes', function()
    err(function() fused.add(nil, a) end, 'add', "'a'", 'expected a tensor', 'nil')
    err(function() fused.matmul(a, {}) end, 'matmul', "'b'", 'expected a tensor', 'table')
    err(function() fused.exp('x') end, 'exp', "'input'", 'string')
    err(function() fused.cat({ a, 3 }, 1) end, 'cat', "'tensors[2]'", 'number')
    err(function() fused.cat({}, 1) end, 'cat', 'non-empty list')
    err(function() a:copy(nil) end, 'copy', "'src'", 'nil')
  end)

  it('mismatched shapes', function()
    err(function() return a + fused.zeros({ 3, 2 }) end, 'add', "'b' of shape [3, 2] does not broadcast with 'a' of shape [2, 3]")
    err(function() return a * fused.zeros({ 6 }) end, 'mul', "'b' of shape [6] does not broadcast", 'sizes 6 and 3 at dim 1 from the end')
    err(function() fused.matmul(a, fused.zeros({ 2, 3 })) end, 'matmul', "'b'", 'expected 3 rows', 'got shape [2, 3]')
    err(function() fused.addmm(fused.zeros({ 4 }), a, fused.zeros({ 3, 5 })) end, 'addmm', "'bias'", 'shape [5]', 'got [4]')
    err(function() fused.cat({ a, fused.zeros({ 3, 3 }) }, 2) end, 'cat', "'tensors[2]'", 'shape [2, 3]', 'got [3, 3]')
    err(function() a:copy(fused.zeros({ 7 })) end, 'copy_', "'src'", "broadcasts to self's shape [2, 3]", 'got [7]')
    err(function() a:view({ 4, 2 }) end, 'view', '6 elements', 'got 8')
  end)

  it('wrong number of dims', function()
    err(function() fused.matmul(fused.zeros({ 2, 3, 4 }), a) end, 'matmul', "'a'", '2 dims', 'got 3')
    err(function() fused.matmul(a, fused.zeros({ 3 })) end, 'matmul', "'b'", '2 dims', 'got 1')
    err(function() fused.zeros({ 3 }):t() end, 't', '2-D', 'got 1 dims')
    err(function() fused.cat({ a, fused.zeros({ 2, 3, 1 }) }, 1) end, 'cat', '2 dims', 'got 3')
  end)

  it('mixed dtypes', function()
    err(function() return fused.zeros({ 2, 3 }, { dtype = 'int64' }):add_(a) end,
        "add_: the result's dtype float32 can't be cast to 'self''s int64")
    err(function() fused.matmul(a, a64:t()) end, 'matmul', "'b'", 'dtype float32', 'got float64')
    err(function() fused.cat({ a, a64 }, 1) end, 'cat', 'float32', 'got float64')
  end)

  it('mixed devices', function()
    local gpu = on_cuda(fused.zeros({ 2, 3 }))
    err(function() return a + gpu end, 'add', "'b'", 'device cpu', 'got cuda')
    err(function() fused.matmul(a, (on_cuda(fused.zeros({ 3, 2 })))) end, 'matmul', "'b'", 'device cpu', 'got cuda')
    helper.without_cuda([[
      local ffi = require 'ffi'
      local t = fused.zeros({ 2, 3 })
      local gpu = ffi.new('fused_tensor')
      assert(fused.C.fused_tensor_view(gpu, t, t.ndim, t.sizes, t.strides, 0) == 0)
      helper.poke(gpu, 'device_type', 1)
      helper.assert_error(function() fused.exp(gpu) end, 'cuda', 'not available')]])
  end)

  it('dims and ranges out of bounds', function()
    err(function() a:sum(3) end, 'sum', "'dim'", '1..2', 'got 3')
    err(function() a:narrow(2, 3, 2) end, 'narrow', "'length'", 'got 2')
    err(function() a:narrow(2, 0, 1) end, 'narrow', "'start'", 'got 0')
    err(function() a:select(1, 3) end, 'select', "'index'", '1..2', 'got 3')
    err(function() a:chunk(0, 1) end, 'chunk', "'n'", 'got 0')
    err(function() a:size(0) end, 'size', "'dim'", 'got 0')
    err(function() fused.zeros({ 2 }):item() end, 'item', 'one element', 'got 2')
  end)

  it('non-contiguous tensors where the C API needs contiguous ones', function()
    local t = fused.zeros({ 3, 2 }):t()
    local out = fused.zeros({ 2, 3 })
    assert.are.equal(-1, fused.C.fused_unary(fused.C.FUSED_EXP, out, t, 1))
    local msg = ffi.string(fused.C.fused_last_error())
    assert.truthy(msg:find("exp: argument 'in' expected a contiguous tensor", 1, true), msg)
    assert.truthy(msg:find('strides [1, 2]', 1, true), msg)
    assert.are.equal(-1, fused.C.fused_sum_dim(fused.zeros({ 1, 3 }), t, 0))
    assert.truthy(ffi.string(fused.C.fused_last_error()):find("sum_dim: argument 'in' expected a contiguous", 1, true))
    err(function() t:view(-1) end, 'view', 'contiguous')
  end)

  it('the C API rejects NULL and garbage without crashing', function()
    local C = fused.C
    assert.are.equal(-1, C.fused_unary(C.FUSED_EXP, nil, a, 1))
    assert.truthy(ffi.string(C.fused_last_error()):find("'out' expected a tensor, got nil", 1, true))
    assert.are.equal(-1, C.fused_unary(99, a, a, 1))
    assert.are.equal(-1, C.fused_binary(C.FUSED_ADD, a, a, nil))
    assert.are.equal(-1, C.fused_addmm(a, nil, nil, a, 0, 1))
    assert.are.equal(-1, C.fused_cat(a, nil, 0, 0))
    local bad = on_cuda(a)
    helper.poke(bad, 'device_type', 0)
    helper.poke(bad, 'ndim', 12)
    assert.are.equal(-1, C.fused_fill(bad, 0))
    assert.truthy(ffi.string(C.fused_last_error()):find('0 to 8 dims, got 12', 1, true))
    helper.poke(bad, 'ndim', 2)
    helper.poke(bad, 'scalar_type', 7)
    assert.are.equal(-1, C.fused_fill(bad, 0))
    assert.truthy(ffi.string(C.fused_last_error()):find('unknown dtype 7', 1, true))
    local sizes = ffi.new('int64_t[1]', 4)
    local view = ffi.new('fused_tensor')
    assert.are.equal(-1, C.fused_tensor_view(view, a, 1, sizes, ffi.new('int64_t[1]', 5), 0))
    assert.truthy(ffi.string(C.fused_last_error()):find('outside its storage', 1, true))
  end)

  it('errors point at the caller', function()
    local cases = {
      function() return fused.zeros({ 2, 3 }, { dtype = 'int64' }):add_(a) end,
      function() return fused.tensor({ { 1 }, { 2, 3 } }) end,
      function() return fused.tensor({ { { 1 }, { 'x' } } }) end,
      function() return a:to(nil, 'float8') end,
      function() return fused.zeros({ 2 }, { dtyp = 'float64' }) end,
      function() return fused.nn.Linear(2, 3, { biass = false }) end,
      function() return fused.nn.LLTM(2, 3, { dtype = 'int8' }) end,
      function() return fused.nn.Linear(2, 3):to('float8') end,
      function() return fused.optim.SGD({ a }, { a }, { lr = 'x' }) end,
      function() return fused.optim.SGD({ a }, { a64 }) end,
      function() return fused.nn.MSELoss():forward(a, a64) end,
      function() return fused.nn.Linear(3, 2):forward('x') end,
      function() return fused.nn.Embedding(3, 2):forward(true) end,
      function() return a:mean({}) end,
      function() return 2 % a end,
      function() return a.nope end,
      function() return a.size(1) end,
      function() return fused.matmul(fused.zeros({ 3 }), a) end,
      function() return fused.ones({ 2 }, { dtype = 'bfloat16' }):add(a:view(-1)) end,
    }
    for i, f in ipairs(cases) do
      local ok, msg = pcall(function() local r = f(); return r end)
      assert.is_false(ok, 'case ' .. i)
      assert.truthy(msg:find('^spec/errors_spec.lua:'), 'case ' .. i .. ': ' .. msg)
    end
  end)
end)
