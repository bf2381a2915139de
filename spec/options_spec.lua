-- Options tables: every function that takes one rejects a key it does not know, naming the
-- function, the key and the keys it accepts, rather than ignoring a typo.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

describe('options', function()
  local p, g = fused.zeros({ 2 }), fused.zeros({ 2 })

  it('tensor constructors accept dtype and device only', function()
    local cases = {
      zeros = function(o) return fused.zeros({ 2 }, o) end,
      ones = function(o) return fused.ones({ 2 }, o) end,
      empty = function(o) return fused.empty({ 2 }, o) end,
      full = function(o) return fused.full({ 2 }, 1, o) end,
      rand = function(o) return fused.rand({ 2 }, o) end,
      randn = function(o) return fused.randn({ 2 }, o) end,
      tensor = function(o) return fused.tensor({ 1 }, o) end,
    }
    for name, make in pairs(cases) do
      err(function() make({ dtyp = 'float64' }) end,
          name .. ": unknown option 'dtyp' (expected one of: device, dtype)")
      err(function() make({ devcie = 'cpu' }) end, name .. ": unknown option 'devcie'")
      err(function() make({ 'float64' }) end, name .. ': unknown option [1]')
      assert.are.equal('float64', make({ dtype = 'float64', device = 'cpu' }).dtype)
    end
  end)

  it('nn modules check their options in their own name', function()
    err(function() fused.nn.Linear(2, 3, { biass = false }) end,
        "Linear: unknown option 'biass' (expected one of: bias, dtype, device)")
    err(function() fused.nn.Embedding(5, 3, { padding = 1 }) end,
        "Embedding: unknown option 'padding' (expected one of: padding_idx, dtype, device)")
    err(function() fused.nn.LLTMCell(2, 3, { dtyp = 'float64' }) end, "LLTMCell: unknown option 'dtyp'")
    err(function() fused.nn.LLTMCellComposed(2, 3, { x = 1 }) end, "LLTMCellComposed: unknown option 'x'")
    err(function() fused.nn.LLTM(2, 3, { dtype = 'half' }) end, "LLTM: option 'dtype'", "got 'half'")
    err(function() fused.nn.Linear(2, 3, 'float64') end, "Linear: argument 'opts'", 'got string')
    err(function() fused.nn.MSELoss({ reduction = 'sum' }) end, 'MSELoss: expected no arguments, got 1')
    err(function() fused.nn.CrossEntropyLoss({ ignore_idx = 0 }) end, "CrossEntropyLoss: unknown option 'ignore_idx'")
    err(function() fused.nn.Linear(2, 3):to('float8') end, 'Linear:to', "got 'float8'")
    assert.are.equal('float64', fused.nn.Linear(2, 3, { dtype = 'float64' }).weight.dtype)
  end)

  it('optimizers list the options they accept', function()
    err(function() fused.optim.Adam({ p }, { g }, { learning_rate = 1 }) end,
        "Adam: unknown option 'learning_rate' (expected one of: betas, eps, lr, weight_decay)")
    err(function() fused.optim.SGD({ p }, { g }, { nestrov = true }) end,
        "SGD: unknown option 'nestrov' (expected one of: dampening, lr, momentum, nesterov, weight_decay)")
    err(function() fused.optim.RMSprop({ p }, { g }, { centered = true }) end, "RMSprop: unknown option 'centered'")
    local opt = fused.optim.SGD({ p }, { g })
    local state = opt:state_dict()
    state.hyper.lrr = 1
    err(function() opt:load_state_dict(state) end, "SGD:load_state_dict: unknown option 'lrr'")
  end)

  it('addmm and gradcheck', function()
    local a, b = fused.zeros({ 2, 2 }), fused.zeros({ 2, 2 })
    err(function() fused.addmm(fused.zeros({ 2 }), a, b, { betta = 0 }) end,
        "addmm: unknown option 'betta' (expected one of: alpha, beta, out)")
    local op = { forward = function(x) return x * 2 end, backward = function(_, d) return d * 2 end }
    local x = fused.randn({ 2 }, { dtype = 'float64' })
    err(function() fused.gradcheck(op, { x }, { tol = 1 }) end,
        "gradcheck: unknown option 'tol' (expected one of: atol, eps, rtol, wrt)")
    err(function() fused.gradcheck(op, { x }, { eps = 0 }) end, "gradcheck: option 'eps'", '> 0', 'got 0')
    err(function() fused.gradcheck(op, { x }, { wrt = 1 }) end, "gradcheck: option 'wrt'", 'got number')
    assert.is_true((fused.gradcheck(op, { x }, { eps = 1e-6, wrt = { 1 } })))
  end)

  it('dtype constants, and a dtype that is not one is an error', function()
    assert.are.equal('float64', fused.zeros({ 2 }, { dtype = fused.float64 }).dtype)
    assert.are.equal('float32', fused.zeros({ 2 }, { dtype = fused.float32 }).dtype)
    assert.are.equal('float64', fused.zeros({ 2 }):to(fused.float64).dtype)
    err(function() return fused.flaot64 end, "fused has no 'flaot64'")
    err(function() fused.zeros({ 2 }, { dtype = fused.C.FUSED_FLOAT64 }) end, "zeros: option 'dtype'", 'got 1')
  end)
end)
