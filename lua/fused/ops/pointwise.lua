-- Elementwise ops: fused.tanh(t), t:tanh(), t:tanh_() in place; fused.add(a, b), a:add(b),
-- a:add_(b). Either operand of a binary op may be a number; two tensors broadcast (NumPy's
-- rules, ops/broadcast.lua). Every op takes {out = t} last (ops/out.lua). A unary op's input
-- that is a view is made contiguous first; an in-place op on a view computes into a temporary
-- and copies back. clamp(t, min, max) is maximum then minimum.
--
-- Integers compute: int64 has every binary op (pow of int64 stays int64, as PyTorch's), neg,
-- abs, sign and the rounding ops (floor, ceil, round: half to even, trunc; the identity on
-- integers); the other unary ops want a floating tensor; pow of integers refuses a negative
-- exponent, as PyTorch's. A binary op's operands are promoted as PyTorch promotes them
-- (dtype.lua's result_type): bool < int64 < float32 < float64, a 0-d tensor or a number
-- widening a dimensioned tensor only from a lower category (float32 with a 0-d float64 is
-- float32; int64 with 0.5 is float32, PyTorch's default dtype). Unlike PyTorch, bool with bool
-- computes in int64 (True + True is 2). div is true division, as PyTorch's `/`: of integers it
-- gives float32; there is no floor_divide yet. An in-place op casts its result to self's dtype
-- where PyTorch does (float32:add_(float64)); a cast into a lower category (int64:add_(0.5)) is
-- an error naming 'self'. add and sub take {alpha = } (a + alpha * b), as PyTorch's.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local blame = require 'fused.blame'
local broadcast = require 'fused.ops.broadcast'
local options = require 'fused.options'
local tensor = require 'fused.tensor'

local C, check, expect, expect_writable = lib.C, argcheck.c_status, argcheck.expect, argcheck.expect_writable
local contiguous, target_like, finish = out_.contiguous, out_.target_like, out_.finish
local M = {}

local function unary_into(fn, op, out, t, alpha)
  t = contiguous(expect(t, fn, 'input'))
  local dst = target_like(fn, out, t)
  check(C.fused_unary(op, dst, t, alpha))
  return finish(out, dst)
end

-- An op that takes alpha (ELU's, default 1): elu(t, alpha, opts); the others take (t, opts),
-- so that t:exp(2) is an error rather than ignored.
local function expect_alpha(alpha, fn)
  return argcheck.expect_number(alpha == nil and 1 or alpha, fn, 'alpha')
end
-- t:exp(2) says what is wrong rather than taking 2 for options (a table); in place, an
-- argument after t is ops/init.lua's error, as any op's extra argument.
local function expect_options(x, fn)
  if x ~= nil and type(x) ~= 'table' then
    blame(string.format("%s: expected one tensor, got a second argument (%s)", fn,
                        argcheck.type_name(x)))
  end
  return x
end
-- One op and its in-place form per row of C's list (fused.h's FUSED_UNARY_OPS).
for op = 0, C.FUSED_NUM_UNARY_OPS - 1 do
  local info = C.fused_unary_op_info_of(op)
  local name = ffi.string(info.name)
  local inplace = name .. '_'
  if info.alpha ~= 0 then
    M[name] = function(t, alpha, opts)
      return unary_into(name, op, out_.option(opts, name), t, expect_alpha(alpha, name))
    end
    M[inplace] = function(t, alpha)
      expect_writable(t, inplace, 'self')
      return unary_into(inplace, op, t, t, expect_alpha(alpha, inplace))
    end
  else
    M[name] = function(t, opts)
      return unary_into(name, op, out_.option(expect_options(opts, name), name), t, 1)
    end
    M[inplace] = function(t)
      expect_writable(t, inplace, 'self')
      return unary_into(inplace, op, t, t, 1)
    end
  end
end

local FLOAT32, INT64 = dt.dtypes.float32, dt.dtypes.int64
local is_floating = dt.is_floating
local MAXIMUM, MINIMUM, POW = C.FUSED_MAXIMUM, C.FUSED_MINIMUM, C.FUSED_POW

-- The dtype that op computes a (a tensor) with b (a tensor or a number) in: PyTorch's
-- result_type (dtype.lua), but that an op without integers computes them in float32 and bool
-- in int64.
local function result_dtype(op, a, b)
  local dtype = dt.result_type({ a, b }, 2)
  if is_floating[dtype] then return dtype end
  if C.fused_binary_op_info_of(op).integers == 0 then return FLOAT32 end
  return INT64
end

-- x converted to dtype, the float paths untouched: a tensor already of it is itself.
local function as_dtype(x, dtype)
  if type(x) == 'number' or x.scalar_type == dtype then return x end
  return x:to(dt.dtype_names[dtype])
end

-- An in-place op writes a result of another dtype into self where PyTorch casts it (float64
-- into float32, not float32 into int64).
local function expect_castable(fn, dtype, self)
  if not dt.can_cast(dtype, self.scalar_type) then
    blame(string.format("%s: the result's dtype %s can't be cast to 'self''s %s, which an in-place "
                        .. "op keeps", fn, dt.dtype_names[dtype], dt.dtype_names[self.scalar_type]))
  end
end

-- An integer power of an integer is defined for exponents >= 0 only (1 / 2 is no int64), as in
-- PyTorch; e: the exponent, a number or a tensor.
local function expect_integer_exponent(fn, e, arg)
  local negative = type(e) == 'number' and e < 0
    or type(e) ~= 'number' and tensor.count_true(e:lt(0)) > 0
  if negative then
    blame(string.format("%s: argument '%s' holds a negative exponent of an integer tensor: "
                        .. "integers to negative integer powers are not allowed (convert to a "
                        .. "floating dtype first)", fn, arg))
  end
end

-- A number operand of an op without a swapped form (2 ^ t) as a 0-d tensor of dtype on x's
-- device, which the op broadcasts: converted from float64 as PyTorch casts a scalar operand
-- (1e39 ^ a float32 t is inf ^ t, not an error), an integer one of dtype's values.
local function scalar_tensor(fn, arg, value, dtype, x)
  local holder = is_floating[dtype] and dt.dtypes.float64 or dtype
  if holder == dtype then argcheck.expect_scalar(value, dtype, fn, arg) end
  local s = tensor.new(0, nil, holder, x.device_type)
  check(C.fused_fill(s, value))
  return as_dtype(s, dtype)
end

-- a op b; rop is op with its operands swapped, for a number a; where there is none (pow) a
-- number a becomes a 0-d tensor of it. out is nil, the user's out, or a (an in-place op).
-- names: what the user calls a and b.
local OPERANDS = { 'a', 'b' }
local function binary_into(fn, op, rop, out, a, b, names)
  names = names or OPERANDS
  if type(a) ~= 'number' then broadcast.expect_operand(a, fn, names[1]) end
  if type(b) ~= 'number' then broadcast.expect_operand(b, fn, names[2]) end
  if type(a) == 'number' and type(b) == 'number' then
    blame(string.format("%s: expected a tensor for '%s' or '%s', got two numbers", fn, names[1], names[2]))
  end
  local x = type(a) == 'number' and b or a -- a tensor operand
  local dtype = x.scalar_type
  if not (is_floating[dtype] and (type(a) == 'number' or type(b) == 'number'
                                   or a.scalar_type == b.scalar_type)) then
    dtype = result_dtype(op, a, b)
  end
  if op == POW and not is_floating[dtype] then expect_integer_exponent(fn, b, names[2]) end
  if out ~= nil and rawequal(out, a) and dtype ~= a.scalar_type then
    expect_castable(fn, dtype, a)
    local r = binary_into(fn, op, rop, nil, a, b, names)
    if not broadcast.same_shape(r, a) then
      blame(string.format("%s: the result's shape [%s] differs from 'self''s [%s], which an "
                          .. "in-place op keeps", fn, table.concat(r:shape(), ', '),
                          table.concat(a:shape(), ', ')))
    end
    check(C.fused_copy(a, r))
    return a
  end
  a, b = as_dtype(a, dtype), as_dtype(b, dtype)
  if type(a) == 'number' and not rop then a = scalar_tensor(fn, names[1], a, dtype, x) end
  if type(a) ~= 'number' and type(b) ~= 'number' then
    a, b = broadcast.operands(fn, out, a, b, names)
    local dst = target_like(fn, out, a)
    check(C.fused_binary(op, dst, a, b))
    return finish(out, dst)
  end
  x = contiguous(type(a) == 'number' and b or a)
  local dst = target_like(fn, out, x)
  if type(b) == 'number' then
    check(C.fused_binary_scalar(op, dst, x, b))
  else
    check(C.fused_binary_scalar(rop, dst, x, a))
  end
  return finish(out, dst)
end

-- add and sub take PyTorch's alpha: a + alpha * b, a - alpha * b. A number third argument
-- (p:add_(g, -lr)) or Torch7's value-first forms (p:add_(-lr, g), x:add(y, z) into x) would
-- compute something else: each is an error that names the call to write.
local TAKES_ALPHA = { add = true, sub = true }
local function expect_alpha_options(fn, inplace, b, opts)
  if opts == nil then return options.check(opts, fn) end -- the common call: no garbage
  local op, sign = fn:match('^(%a+)'), fn:sub(1, 3) == 'add' and '+' or '-'
  if type(opts) == 'number' and argcheck.is_tensor(b) then
    blame(string.format("%s: got a number (%s) after the tensor: for x %s alpha * y write "
                        .. "x:%s(y, {alpha = %s})", fn, tostring(opts), sign, fn, tostring(opts)))
  end
  if argcheck.is_tensor(opts) and type(b) == 'number' then
    blame(string.format("%s: (value, tensor) is Torch7's x:%s(value, y), x = x %s value * y: write "
                        .. "x:%s_(y, {alpha = %s})%s", fn, op, sign, op, tostring(b),
                        inplace and '' or string.format(", or x:%s(y, {alpha = %s}) for a new tensor",
                                                        op, tostring(b))))
  end
  if fn == 'sub' and type(b) == 'number' and type(opts) == 'number' then
    blame(string.format("sub: (number, number) is Torch7's x:sub(i, j), rows i to j of x: write "
                        .. 'x:narrow(1, %s, %s - %s + 1) (or x - %s for a subtraction)', tostring(b),
                        tostring(opts), tostring(b), tostring(b)))
  end
  if argcheck.is_tensor(opts) and argcheck.is_tensor(b) and not inplace then
    blame(string.format("%s: (tensor, tensor) is Torch7's res:%s(x, y), res = x %s y: write "
                        .. "fused.%s(x, y, {out = res})", fn, op, sign, op))
  end
  return options.check(opts, fn, inplace and { 'alpha' } or { 'alpha', 'out' })
end

-- b scaled by alpha, for a + alpha * b: a float alpha is an error where the result is an
-- integer (as PyTorch's).
local function scaled(fn, op, a, b, alpha)
  if alpha == nil or alpha == 1 then return b end
  argcheck.expect_number(alpha, fn, 'alpha')
  if type(a) ~= 'number' then broadcast.expect_operand(a, fn, 'a') end
  if type(b) ~= 'number' then broadcast.expect_operand(b, fn, 'b') end
  if not is_floating[result_dtype(op, a, b)] and alpha ~= math.floor(alpha) then
    blame(string.format("%s: option 'alpha' expected an integer for an integer result, got %s",
                        fn, tostring(alpha)))
  end
  if type(b) == 'number' then return b * alpha end
  return binary_into(fn, C.FUSED_MUL, C.FUSED_MUL, nil, b, alpha)
end

-- One op and its in-place form per row of C's list (fused.h's FUSED_BINARY_OPS), but rsub and
-- rdiv: listed after sub and div, whose swapped forms they are, they are no op of their own.
for op = 0, C.FUSED_NUM_BINARY_OPS - 1 do
  local info = C.fused_binary_op_info_of(op)
  local name, rop = ffi.string(info.name), info.swapped >= 0 and info.swapped or nil
  local inplace = name .. '_'
  if TAKES_ALPHA[name] then
    M[name] = function(a, b, opts)
      opts = expect_alpha_options(name, false, b, opts)
      return binary_into(name, op, rop, opts.out, a, scaled(name, op, a, b, opts.alpha))
    end
    M[inplace] = function(a, b, opts)
      opts = expect_alpha_options(inplace, true, b, opts)
      expect_writable(a, inplace, 'self')
      return binary_into(inplace, op, rop, a, a, scaled(inplace, op, a, b, opts.alpha))
    end
  elseif not (rop and rop < op) then
    M[name] = function(a, b, opts)
      return binary_into(name, op, rop, out_.option(opts, name), a, b)
    end
    M[inplace] = function(a, b)
      return binary_into(inplace, op, rop, expect_writable(a, inplace, 'self'), a, b)
    end
  end
end

-- clamp(t, min, max, opts): either bound may be nil (not both), a number or a tensor; the
-- three broadcast, and the result's dtype is the tensors' result_type. A number bound must be
-- one of that dtype's values: an int64 tensor's 0.5 is an error (not a float32 result, as
-- PyTorch's), so that the clamped tensor stays int64 and exact; a float32's 1e39 too, as in
-- PyTorch. Returns the result's dtype and shape.
local CLAMP_NAMES = { 'input', 'min', 'max' }
local function clamp_bounds(fn, t, min, max)
  expect(t, fn, 'input')
  if min == nil and max == nil then
    blame(string.format("%s: expected 'min' or 'max' (or both), got neither", fn))
  end
  local tensors, names, bounds = { t }, { 'input' }, { min, max }
  for i = 1, 2 do -- either may be nil
    local bound, arg = bounds[i], CLAMP_NAMES[i + 1]
    if bound ~= nil and type(bound) ~= 'number' then
      tensors[#tensors + 1], names[#names + 1] = broadcast.expect_operand(bound, fn, arg), arg
    end
  end
  local dtype = dt.result_type(tensors, #tensors)
  if dtype == dt.dtypes.bool then
    blame(string.format("%s: argument 'input' expected a number dtype, got bool", fn))
  end
  for i = 1, 2 do
    if type(bounds[i]) == 'number' then argcheck.expect_scalar(bounds[i], dtype, fn, CLAMP_NAMES[i + 1]) end
  end
  return dtype, broadcast.shape(fn, names, tensors)
end

-- Maximum with min, then minimum with max, in place on r (the result, of its dtype already).
local function clamp_into(fn, r, min, max)
  if min ~= nil then binary_into(fn, MAXIMUM, MAXIMUM, r, r, min, { 'input', 'min' }) end
  if max ~= nil then binary_into(fn, MINIMUM, MINIMUM, r, r, max, { 'input', 'max' }) end
  return r
end

function M.clamp(t, min, max, opts)
  local out = out_.option(opts, 'clamp')
  local dtype, shape = clamp_bounds('clamp', t, min, max)
  local r = broadcast.expand(as_dtype(t, dtype), shape)
  local dst = target_like('clamp', out, r)
  check(C.fused_copy(dst, r))
  return finish(out, clamp_into('clamp', dst, min, max))
end

function M.clamp_(t, min, max)
  local dtype, shape = clamp_bounds('clamp_', t, min, max)
  expect_writable(t, 'clamp_', 'self')
  broadcast.check_inplace('clamp_', t, shape)
  if dtype == t.scalar_type then return clamp_into('clamp_', t, min, max) end
  expect_castable('clamp_', dtype, t)
  check(C.fused_copy(t, clamp_into('clamp_', t:to(dt.dtype_names[dtype]), min, max)))
  return t
end

return M
