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
  fake.device_type = 1
  return fake
end

describe('bad input', function()
  local a = fused.zeros({ 2, 3 })
  local a64 = fused.zeros({ 2, 3 }, { dtype = 'float64' })

  it('shapes: zero, negative, fractional, too many dims, not a list', function()
    err(function() fused.zeros({ 0, 3 }) end, 'zeros', "'shape'", 'positive integer', 'got 0')
    err(function() fused.ones({ 2, -1 }) end, 'ones', "'shape'", 'got -1')
    err(function() fused.empty({ 1.5 }) end, 'empty', "'shape'", 'got 1.5')
    err(function() fused.rand({ 1, 1, 1, 1, 1, 1, 1, 1, 1 }) end, 'rand', '1 to 8 sizes', 'got 9')
    err(function() fused.randn('big') end, 'randn', "'shape'", 'got string')
    err(function() fused.zeros({}) end, 'zeros', 'got 0')
  end)

  it('options: unknown dtype or device', function()
    err(function() fused.zeros({ 2 }, { dtype = 'int8' }) end, 'zeros', "'dtype'", 'int8')
    err(function() fused.zeros({ 2 }, { device = 'tpu' }) end, 'zeros', "'device'", 'tpu')
    err(function() fused.zeros({ 2 }, 'float64') end, 'zeros', "'opts'", 'string')
    err(function() a:to('float16') end, 'to', 'float16')
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
    err(function() return a + fused.zeros({ 3, 2 }) end, 'add', "'b'", 'shape [2, 3]', 'got [3, 2]')
    err(function() return a * fused.zeros({ 6 }) end, 'mul', "'b'", 'got [6]')
    err(function() fused.matmul(a, fused.zeros({ 2, 3 })) end, 'matmul', "'b'", 'expected 3 rows', 'got shape [2, 3]')
    err(function() fused.addmm(fused.zeros({ 4 }), a, fused.zeros({ 3, 5 })) end, 'addmm', "'bias'", 'shape [5]', 'got [4]')
    err(function() fused.cat({ a, fused.zeros({ 3, 3 }) }, 2) end, 'cat', "'tensors[2]'", 'shape [2, 3]', 'got [3, 3]')
    err(function() a:copy(fused.zeros({ 7 })) end, 'copy', "'src'", '6 elements', 'got 7')
    err(function() a:view({ 4, 2 }) end, 'view', '6 elements', 'got 8')
  end)

  it('wrong number of dims', function()
    err(function() fused.matmul(fused.zeros({ 2, 3, 4 }), a) end, 'matmul', "'a'", '2 dims', 'got 3')
    err(function() fused.matmul(a, fused.zeros({ 3 })) end, 'matmul', "'b'", '2 dims', 'got 1')
    err(function() fused.zeros({ 3 }):t() end, 't', '2-D', 'got 1 dims')
    err(function() fused.cat({ a, fused.zeros({ 2, 3, 1 }) }, 1) end, 'cat', '2 dims', 'got 3')
  end)

  it('mixed dtypes', function()
    err(function() return a + a64 end, 'add', "'b'", 'dtype float32', 'got float64')
    err(function() fused.matmul(a, a64:t()) end, 'matmul', "'b'", 'dtype float32', 'got float64')
    err(function() fused.cat({ a, a64 }, 1) end, 'cat', 'float32', 'got float64')
  end)

  it('mixed devices', function()
    local gpu = on_cuda(fused.zeros({ 2, 3 }))
    err(function() return a + gpu end, 'add', "'b'", 'device cpu', 'got cuda')
    err(function() fused.matmul(a, on_cuda(fused.zeros({ 3, 2 }))) end, 'matmul', "'b'", 'device cpu', 'got cuda')
    err(function() fused.exp(gpu) end, 'cuda', 'not available')
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
    assert.truthy(msg:find("exp: argument 'input' expected a contiguous tensor", 1, true), msg)
    assert.truthy(msg:find('strides [1, 2]', 1, true), msg)
    assert.are.equal(-1, fused.C.fused_sum_dim(fused.zeros({ 1, 3 }), t, 0))
    assert.truthy(ffi.string(fused.C.fused_last_error()):find("sum: argument 'input' expected a contiguous", 1, true))
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
    bad.device_type, bad.ndim = 0, 12
    assert.are.equal(-1, C.fused_fill(bad, 0))
    assert.truthy(ffi.string(C.fused_last_error()):find('1 to 8 dims, got 12', 1, true))
    bad.ndim, bad.scalar_type = 2, 7
    assert.are.equal(-1, C.fused_fill(bad, 0))
    assert.truthy(ffi.string(C.fused_last_error()):find('unknown dtype 7', 1, true))
    local sizes = ffi.new('int64_t[1]', 4)
    local view = ffi.new('fused_tensor')
    assert.are.equal(-1, C.fused_tensor_view(view, a, 1, sizes, ffi.new('int64_t[1]', 5), 0))
    assert.truthy(ffi.string(C.fused_last_error()):find('outside its storage', 1, true))
  end)

  it('errors point at the caller', function()
    local ok, msg = pcall(function() return a + a64 end)
    assert.is_false(ok)
    assert.truthy(msg:find('errors_spec.lua', 1, true), msg)
  end)
end)
