-- An op of your own (examples/custom_op: softplus in C, and CUDA where cuda tensors run) through
-- fused.ext.load and fused_ext.h: a Module that gradchecks, errors that reach Lua as ours do,
-- and the same sources built ahead of time by the example's Makefile.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused

pcall(ffi.cdef, 'int setenv(const char *name, const char *value, int overwrite);')
local cache = os.tmpname()
ffi.C.setenv('FUSED_EXT_CACHE', cache .. '.d', 1)
local Softplus = dofile('examples/custom_op/Softplus.lua')
local o = { dtype = 'float64' }

describe('a custom op (examples/custom_op)', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  it('computes softplus and passes gradcheck as a Module', function()
    fused.manual_seed(2)
    local x = fused.randn({ 4, 5 }, o) * 5
    local m = Softplus()
    local y = m:forward(x)
    local want = (x:exp() + 1):log()
    assert.is_true((y - want):abs():max() < 1e-12)
    local ok, worst = fused.gradcheck({
      forward = function(t) local s = Softplus(); return s:forward(t), s end,
      backward = function(s, d_y) return s:backward(d_y) end,
    }, { x })
    assert.is_true(ok, worst and worst.message)
  end)

  it('raises its argument errors through fused.ext.check', function()
    local x = fused.randn({ 3 }, o)
    assert.has_error(function() Softplus():forward(fused.tensor({ 1, 2 }, { dtype = 'int64' })) end,
      "softplus_forward: argument 'x' expected dtype float32 or float64, got int64")
    assert.has_error(function() fused.ext.check(Softplus.C.softplus_forward(fused.empty({ 4 }, o), x)) end,
      "softplus_forward: argument 'out' expected shape [3] (as 'x'), got [4]")
  end)

  helper.gpu_it('runs its CUDA half (softplus.cu) on the device, equal to its CPU half', function()
    fused.manual_seed(3)
    local x, d_y = fused.randn({ 3, 700 }, o) * 5, fused.randn({ 3, 700 }, o)
    local cpu, gpu = Softplus(), Softplus()
    local y, y_gpu = cpu:forward(x), gpu:forward(x:cuda())
    assert.are.equal('cuda', y_gpu.device)
    helper.assert_close(y_gpu, y, 1e-14, 'forward')
    helper.assert_close(gpu:backward(d_y:cuda()), cpu:backward(d_y), 1e-14, 'backward')
  end)

  it('says so when its CUDA half is called where cuda tensors do not run', function()
    helper.without_cuda([[
      local Softplus = dofile('examples/custom_op/Softplus.lua')
      local x = fused.randn({ 3 })
      helper.assert_error(function() fused.ext.check(Softplus.C.softplus_forward_cuda(x, x)) end,
                          'softplus_forward', 'no CUDA part')]])
  end)

  it('builds ahead of time with its Makefile and loads that library', function()
    assert.are.equal(0, os.execute('make -s -C examples/custom_op >/dev/null'))
    local p = io.popen([[SOFTPLUS_PREBUILT=1 LUA_PATH='lua/?.lua;lua/?/init.lua;;' luajit -e "
      local fused = require 'fused'
      local m = dofile('examples/custom_op/Softplus.lua')()
      print('value', m:forward(fused.zeros({1}, {dtype = 'float64'})):item())" 2>&1]])
    local out = p:read('*a')
    p:close()
    assert.truthy(out:find('value\t0.69314718', 1, true), out)
    os.execute('make -s -C examples/custom_op clean')
  end)
end)
