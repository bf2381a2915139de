-- int64 and bool tensors: the C dtype table, storage, copy and conversion between all dtypes,
-- fill, comparisons into bool, int64 indices for embedding and cross-entropy, and the error
-- an integer tensor gets from an arithmetic op.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local C, check, err = fused.C, require('fused.lib').check, helper.assert_error

local DTYPES = { 'float32', 'float64', 'int64', 'bool', 'bfloat16', 'float16' }

local function values(t) return t:to('float64'):totable() end

-- The int64 elements of a contiguous CPU tensor, as Lua numbers (exact below 2^53).
local function int64_values(t)
  local p, out = ffi.cast('int64_t*', t.data), {}
  for i = 0, t:numel() - 1 do out[i + 1] = tonumber(p[i]) end
  return out
end

describe('dtype table', function()
  it('gives every dtype its name, size and file codes', function()
    local want = {
      { 'float32', 4, '<f4', 'F32', 1 }, { 'float64', 8, '<f8', 'F64', 1 },
      { 'int64', 8, '<i8', 'I64', 0 }, { 'bool', 1, '|b1', 'BOOL', 0 },
      { 'bfloat16', 2, nil, 'BF16', 1 }, { 'float16', 2, '<f2', 'F16', 1 },
    }
    for i, w in ipairs(want) do
      local info = C.fused_dtype_info_of(i - 1)
      assert.are.same(w, { ffi.string(info.name), info.size,
                           info.npy_descr ~= nil and ffi.string(info.npy_descr) or nil,
                           ffi.string(info.safetensors), info.is_floating })
      assert.are.equal(w[2], tonumber(C.fused_dtype_size(i - 1)))
    end
    assert.is_true(C.fused_dtype_info_of(6) == nil)
    assert.is_true(C.fused_dtype_info_of(-1) == nil)
  end)

  it('is what the Lua side knows of dtypes, with the names as constants', function()
    local dt = require 'fused.dtype'
    for id = 0, C.FUSED_NUM_DTYPES - 1 do
      local info, name = C.fused_dtype_info_of(id), DTYPES[id + 1]
      local npy = info.npy_descr ~= nil and ffi.string(info.npy_descr) or nil -- bfloat16: none
      assert.are.same({ name, id, info.size, info.is_floating == 1, npy,
                        ffi.string(info.safetensors), id, id, name },
                      { dt.dtype_names[id], dt.dtypes[name], dt.sizes[id], dt.is_floating[id],
                        dt.npy_descrs[id], dt.safetensors_codes[id],
                        npy and dt.npy_dtypes[npy] or id,
                        dt.safetensors_dtypes[ffi.string(info.safetensors)], fused[name] })
      -- The pointer type steps by the element size.
      assert.are.equal(info.size, tonumber(ffi.cast('intptr_t', ffi.cast(dt.ctypes[id], 0) + 1)), name)
    end
    assert.are.equal(C.FUSED_NUM_DTYPES, #DTYPES)
  end)

  it('lists every dtype in the errors that name them', function()
    err(function() fused.zeros({ 1 }, { dtype = 'int32' }) end,
        "zeros: option 'dtype' expected 'float32', 'float64', 'int64', 'bool', 'bfloat16' or 'float16', got 'int32'")
    err(function() fused.zeros({ 1 }):to('int32') end,
        "to: argument 1 expected 'float32', 'float64', 'int64', 'bool', 'bfloat16', 'float16', 'cpu', 'cuda' or nil, got 'int32'")
  end)
end)

describe('int64 and bool tensors', function()
  it('convert to and from every dtype, strided views included', function()
    local src = fused.tensor({ { 0, 1, 2 }, { -3, 4, 0 } }, { dtype = 'float64' })
    local as_bool = { { 0, 1, 1 }, { 1, 1, 0 } }
    for _, from in ipairs(DTYPES) do
      for _, to in ipairs(DTYPES) do
        local a = src:to(from)
        local want = (from == 'bool' or to == 'bool') and as_bool or values(src)
        assert.are.same(want, values(a:to(to)), from .. ' to ' .. to)
        assert.are.same(values(a:t():to(to)), values(a:to(to):t():contiguous()), from .. ' to ' .. to .. ', transposed')
      end
    end
  end)

  it('keep int64 values beyond 2^53 exactly', function()
    local big = fused.empty({ 2, 1 }, { dtype = 'int64' })
    local p = ffi.cast('int64_t*', big.data)
    p[0], p[1] = 9007199254740993LL, -9007199254740993LL
    local copy = big:t():contiguous()
    local q = ffi.cast('int64_t*', copy.data)
    assert.is_true(q[0] == 9007199254740993LL and q[1] == -9007199254740993LL)
  end)

  it('fill any dtype, a bool with 0 or 1', function()
    assert.are.same({ 7, 7 }, int64_values(fused.full({ 2 }, 7, { dtype = 'int64' })))
    assert.are.same({ 1, 1 }, values(fused.full({ 2 }, 1, { dtype = 'bool' })))
    assert.are.same({ 0, 0 }, values(fused.zeros({ 2 }, { dtype = 'bool' })))
    local t = fused.zeros({ 2, 3 }, { dtype = 'int64' })
    check(C.fused_fill(t:narrow(2, 2, 1), -5))
    assert.are.same({ 0, -5, 0, 0, -5, 0 }, int64_values(t))
  end)

  it('reject a floating value that is not an integer in int64 range, naming its position', function()
    err(function() fused.tensor({ 1, 2.5 }):to('int64') end,
        "to: expected whole numbers in int64's range, got 2.5 at position 2")
    err(function() fused.zeros({ 2 }, { dtype = 'int64' }):copy_(fused.tensor({ 1, 2.5 })) end,
        "copy: argument 'src' expected integers in int64's range for an int64 'dst', got 2.5 at position 2")
    err(function() fused.tensor({ 0 / 0 }, { dtype = 'float64' }):to('int64') end, 'nan at position 1')
    err(function() fused.tensor({ 1, 2 ^ 63 }, { dtype = 'float64' }):to('int64') end, 'at position 2')
    assert.are.same({ -2 ^ 53, 2 ^ 53 }, int64_values(fused.tensor({ -2 ^ 53, 2 ^ 53 }, { dtype = 'float64' }):to('int64')))
  end)
end)

describe('compare', function()
  local OPS = { eq = C.FUSED_EQ, ne = C.FUSED_NE, lt = C.FUSED_LT, le = C.FUSED_LE, gt = C.FUSED_GT, ge = C.FUSED_GE }
  local a_values, b_values = { 1, 2, 3, -1 }, { 1, 3, 2, -1 }
  local want = {
    eq = { 1, 0, 0, 1 }, ne = { 0, 1, 1, 0 }, lt = { 0, 1, 0, 0 },
    le = { 1, 1, 0, 1 }, gt = { 0, 0, 1, 0 }, ge = { 1, 0, 1, 1 },
  }
  local want_scalar = { -- against 2
    eq = { 0, 1, 0, 0 }, ne = { 1, 0, 1, 1 }, lt = { 1, 0, 0, 1 },
    le = { 1, 1, 0, 1 }, gt = { 0, 0, 1, 0 }, ge = { 0, 1, 1, 0 },
  }
  for _, dtype in ipairs({ 'float32', 'float64', 'int64' }) do
    it('tensor-tensor and tensor-scalar into bool, in ' .. dtype, function()
      local a, b = fused.tensor(a_values, { dtype = dtype }), fused.tensor(b_values, { dtype = dtype })
      for name, op in pairs(OPS) do
        local out = fused.empty({ 4 }, { dtype = 'bool' })
        check(C.fused_compare(op, out, a, b))
        assert.are.same(want[name], values(out), name)
        check(C.fused_compare_scalar(op, out, a, 2))
        assert.are.same(want_scalar[name], values(out), name .. ' scalar')
      end
    end)
  end

  it('compares bools, and NaN as IEEE does', function()
    local out = fused.empty({ 2 }, { dtype = 'bool' })
    local x = fused.tensor({ 0, 1 }, { dtype = 'bool' })
    check(C.fused_compare(C.FUSED_LT, out, x:to('bool'), fused.tensor({ 1, 1 }, { dtype = 'bool' })))
    assert.are.same({ 1, 0 }, values(out))
    local nan = fused.tensor({ 0 / 0, 1 }, { dtype = 'float64' })
    check(C.fused_compare(C.FUSED_EQ, out, nan, nan))
    assert.are.same({ 0, 1 }, values(out))
    check(C.fused_compare(C.FUSED_NE, out, nan, nan))
    assert.are.same({ 1, 0 }, values(out))
  end)

  it('wants a bool out of the input shape, one dtype for both inputs', function()
    local a = fused.tensor({ 1, 2 })
    err(function() check(C.fused_compare(C.FUSED_EQ, fused.empty({ 2 }), a, a)) end,
        "eq: argument 'out' expected dtype bool, got float32")
    err(function() check(C.fused_compare(C.FUSED_EQ, fused.empty({ 3 }, { dtype = 'bool' }), a, a)) end,
        "eq: argument 'out' expected shape [2], got [3]")
    err(function() check(C.fused_compare(C.FUSED_LT, fused.empty({ 2 }, { dtype = 'bool' }), a, a:to('int64'))) end,
        "lt: argument 'b' expected dtype float32 (as 'a'), got int64")
    err(function() check(C.fused_compare(99, fused.empty({ 2 }, { dtype = 'bool' }), a, a)) end, 'compare: unknown op 99')
  end)
end)

describe('arithmetic that a dtype lacks', function()
  it('is a clear error naming the dtype and the input', function()
    local i = fused.tensor({ 1, 2 }, { dtype = 'int64' })
    err(function() check(C.fused_unary(C.FUSED_EXP, fused.empty({ 2 }, { dtype = 'int64' }), i, 0)) end,
        "exp: argument 'input' expected a floating dtype (float32 or float64), got int64")
    err(function() check(C.fused_binary(C.FUSED_DIV, fused.empty({ 2 }, { dtype = 'int64' }), i, i)) end,
        "div: argument 'a' expected a floating dtype (float32 or float64), got int64")
    err(function() check(C.fused_binary(C.FUSED_ADD, fused.empty({ 2 }, { dtype = 'bool' }), i:to('bool'), i:to('bool'))) end,
        "add: argument 'a' expected a number dtype (float32, float64 or int64), got bool")
    local m = fused.ones({ 2, 2 }, { dtype = 'int64' })
    err(function() check(C.fused_addmm(fused.empty({ 2, 2 }, { dtype = 'int64' }), nil, m, m, 0, 1)) end,
        'expected a floating dtype', 'got int64')
    err(function() check(C.fused_normal(fused.empty({ 2 }, { dtype = 'int64' }), 0, 1)) end,
        "normal: argument 't' expected a floating dtype (float32 or float64), got int64")
  end)
end)

describe('int64 indices', function()
  it('pick embedding rows and class targets', function()
    local weight = fused.tensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } }, { dtype = 'float64' })
    local out = fused.empty({ 2, 2 }, { dtype = 'float64' })
    check(C.fused_embedding_forward(out, weight, fused.tensor({ 3, 1 }, { dtype = 'int64' })))
    assert.are.same({ { 5, 6 }, { 1, 2 } }, out:totable())
    err(function() check(C.fused_embedding_forward(out, weight, fused.tensor({ 3, 1 }, { dtype = 'float64' }))) end,
        "embedding_forward: argument 'indices' expected dtype int64, got float64")
    local logits, loss = fused.zeros({ 1, 3 }, { dtype = 'float64' }), fused.empty({ 1 }, { dtype = 'float64' })
    err(function() check(C.fused_cross_entropy_forward(loss, logits, fused.tensor({ 2 }))) end,
        "cross_entropy_forward: argument 'targets' expected dtype int64, got float32")
  end)

  it('stay exact above 2^24, where float32 indices could not', function()
    local rows = 2 ^ 24 + 2
    local weight = fused.zeros({ rows, 1 })
    weight:narrow(1, rows - 1, 1):fill(1)
    weight:narrow(1, rows, 1):fill(2)
    local idx = fused.tensor({ rows - 1, rows }, { dtype = 'int64' })
    local out = fused.empty({ 2, 1 })
    check(C.fused_embedding_forward(out, weight, idx))
    assert.are.same({ { 1 }, { 2 } }, out:totable())
    -- Class 2^24 + 1 holds logit 10, the rest 0: its loss is log(2^24 + 1 + e^10) - 10.
    local logits = fused.zeros({ 1, rows }, { dtype = 'float64' })
    logits:narrow(2, rows - 1, 1):fill(10)
    local loss = fused.empty({ 1 }, { dtype = 'float64' })
    check(C.fused_cross_entropy_forward(loss, logits, fused.tensor({ rows - 1 }, { dtype = 'int64' })))
    assert(math.abs(loss:item() - (math.log(2 ^ 24 + 1 + math.exp(10)) - 10)) < 1e-9, tostring(loss:item()))
  end)
end)

describe('int64 and bool from Lua', function()
  local BIG = 9007199254740993LL -- 2^53 + 1: no double holds it
  local MAX, MIN = 9223372036854775807LL, -9223372036854775807LL - 1

  it('fused.tensor makes a bool tensor from booleans, an int64 one from integers or int64_t', function()
    local b = fused.tensor({ { true, false }, { false, true } })
    assert.are.equal('bool', b.dtype)
    assert.are.same({ { true, false }, { false, true } }, b:totable())
    assert.are.same({ true, false, true }, fused.tensor({ true, 0, -2 }, { dtype = 'bool' }):totable())
    local i = fused.tensor({ 1, -2, BIG, MIN }, { dtype = fused.int64 })
    assert.are.equal('int64', i.dtype)
    assert.is_true(int64_values(i)[2] == -2)
    local p = ffi.cast('int64_t*', i.data)
    assert.is_true(p[0] == 1 and p[2] == BIG and p[3] == MIN)
  end)

  it('fused.tensor names an element its dtype cannot take', function()
    err(function() fused.tensor({ 1, 2.5 }, { dtype = 'int64' }) end,
        "tensor: argument 'data' expected an integer in int64's range (a number or an int64_t) at data[2] (dtype int64), got 2.5")
    err(function() fused.tensor({ 2 ^ 63 }, { dtype = 'int64' }) end, 'at data[1] (dtype int64), got 9.2233720368548e+18')
    err(function() fused.tensor({ { 1 }, { true } }) end,
        "tensor: argument 'data' expected a number at data[2][1] (dtype float32), got boolean")
    err(function() fused.tensor({ true, 'x' }) end,
        "tensor: argument 'data' expected a boolean or a number (nonzero is true) at data[2] (dtype bool), got string")
  end)

  it('totable and item: int64 as numbers up to 2^53, beyond as int64_t; bools as booleans', function()
    local t = fused.tensor({ 2 ^ 53, -2 ^ 53, BIG, -BIG, MAX, MIN, 0 }, { dtype = 'int64' })
    local values = t:totable()
    local types = {}
    for k, v in ipairs(values) do types[k] = type(v) end
    assert.are.same({ 'number', 'number', 'cdata', 'cdata', 'cdata', 'cdata', 'number' }, types)
    assert.are.same({ 2 ^ 53, -2 ^ 53 }, { values[1], values[2] })
    assert.is_true(values[3] == BIG and values[4] == -BIG and values[5] == MAX and values[6] == MIN)
    -- What totable gives, tensor takes back, every bit the same.
    local back = fused.tensor(values, { dtype = 'int64' })
    assert.are.equal(ffi.string(t.data, 56), ffi.string(back.data, 56))

    assert.are.equal(-7, fused.tensor({ -7 }, { dtype = 'int64' }):item())
    assert.is_true(fused.tensor({ BIG }, { dtype = 'int64' }):item() == BIG)
    assert.are.equal(true, fused.tensor({ true }):item())
    assert.are.equal(false, fused.zeros({ 1, 1 }, { dtype = 'bool' }):item())
    assert.are.same({ { false, true } }, fused.tensor({ { 0, 3 } }, { dtype = 'float64' }):to('bool'):totable())
  end)

  it('print int64 without decimals, every digit, and bools as true and false', function()
    assert.are.equal('   1  -20\n 300    4\n[fused.Tensor int64 cpu of size 2x2]',
                     tostring(fused.tensor({ { 1, -20 }, { 300, 4 } }, { dtype = 'int64' })))
    -- One width for all: the longest text (20 characters) and a space.
    assert.are.equal('     9007199254740993 ' .. string.rep(' ', 20) .. '0  -9223372036854775808\n'
                     .. '[fused.Tensor int64 cpu of size 3]',
                     tostring(fused.tensor({ BIG, 0, MIN }, { dtype = 'int64' })))
    assert.are.equal('  true  false\n false   true\n[fused.Tensor bool cpu of size 2x2]',
                     tostring(fused.tensor({ { true, false }, { false, true } })))
  end)
end)
