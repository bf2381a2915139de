-- Elementwise ops: fused.tanh(t), t:tanh(), t:tanh_() in place; fused.add(a, b), a:add(b),
-- a:add_(b). Either operand of a binary op may be a number; two tensors broadcast (NumPy's
-- rules, ops/broadcast.lua). Every op takes {out = t} last (ops/out.lua). A unary op's input
-- that is a view is made contiguous first; an in-place op on a view computes into a temporary
-- and copies back. clamp(t, min, max) is maximum then minimum.
--
-- Integers compute: int64 has every binary op (pow of int64 stays int64, as PyTorch's), neg,
-- abs, sign and the rounding ops (floor, ceil, round: half to even, trunc; the identity on
-- integers); the other unary ops want a floating tensor. A binary op's operands are promoted as
-- PyTorch promotes them (result_dtype): bool < int64 < float32 < float64, and a Lua number
-- that is not an integer makes an int64 or bool tensor's result float32 (PyTorch's default
-- dtype). Unlike PyTorch, bool with bool computes in int64 (True + True is 2). div is true
-- division, as PyTorch's `/`: of integers it gives float32; there is no floor_divide yet.
-- An in-place op keeps its dtype: a result of another dtype is an error naming 'self'.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local blame = require 'fused.blame'
local broadcast = require 'fused.ops.broadcast'

local C, check, expect, expect_writable = lib.C, lib.check, argcheck.expect, argcheck.expect_writable
local contiguous, like, dense, finish = out_.contiguous, out_.like, out_.dense, out_.finish
local M = {}

local function unary_into(fn, op, out, t, alpha)
  t = contiguous(expect(t, fn, 'input'))
  out = like(fn, out, t)
  local dst = dense(out)
  check(C.fused_unary(op, dst, t, alpha))
  return finish(out, dst)
end

-- An op that takes alpha (ELU's, default 1): elu(t, alpha, opts); the others take (t, opts),
-- so that t:exp(2) is an error rather than ignored.
local function expect_alpha(alpha, fn)
  return argcheck.expect_number(alpha == nil and 1 or alpha, fn, 'alpha')
end
-- t:exp(2) says what is wrong rather than taking 2 for options (a table, when allowed).
local function expect_no_argument(x, fn, options_allowed)
  if x ~= nil and not (options_allowed and type(x) == 'table') then
    error(string.format("%s: expected one tensor, got a second argument (%s)", fn,
                        argcheck.type_name(x)), 3)
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
      return unary_into(name, op, out_.option(expect_no_argument(opts, name, true), name), t, 1)
    end
    M[inplace] = function(t, extra)
      expect_no_argument(extra, inplace)
      expect_writable(t, inplace, 'self')
      return unary_into(inplace, op, t, t, 1)
    end
  end
end

local FLOAT32, FLOAT64, INT64 = dt.dtypes.float32, dt.dtypes.float64, dt.dtypes.int64
local is_floating = dt.is_floating
-- PyTorch's order of dtypes: a wider kind wins (floating over integer over bool), then the
-- wider dtype (float64 over float32 over bfloat16 and float16), from the dtype table.
local rank = {}
for id, size in pairs(dt.sizes) do rank[id] = (is_floating[id] and 16 or 0) + size end

-- The dtype that op computes a (a tensor) with b (a tensor or a number) in.
local function result_dtype(op, a, b)
  local dtype = a.scalar_type
  if type(b) == 'number' then
    if not is_floating[dtype] then
      dtype = (b == math.floor(b) and b - b == 0) and INT64 or FLOAT32
    end
  elseif rank[b.scalar_type] > rank[dtype] then
    dtype = b.scalar_type
  end
  if is_floating[dtype] then return dtype end
  if C.fused_binary_op_info_of(op).integers == 0 then return FLOAT32 end
  return INT64 -- bool computes as int64
end

-- x converted to dtype, the float paths untouched: a tensor already of it is itself.
local function as_dtype(x, dtype)
  if type(x) == 'number' or x.scalar_type == dtype then return x end
  return x:to(dt.dtype_names[dtype])
end

-- a and b in the dtype that op computes them in; an in-place op's (out is a) must be a's own
-- (errors at level 3 from here: the caller of the op, which tail-calls binary_into).
local function promote(fn, op, out, a, b, x, y)
  local dtype = result_dtype(op, x, y)
  if dtype == x.scalar_type and (type(y) == 'number' or y.scalar_type == dtype) then
    return a, b
  end
  if (rawequal(out, a) or rawequal(out, b)) and out.scalar_type ~= dtype then
    error(string.format("%s: the result's dtype %s differs from 'self''s %s, which an in-place "
                        .. "op keeps", fn, dt.dtype_names[dtype],
                        dt.dtype_names[out.scalar_type]), 3)
  end
  return as_dtype(a, dtype), as_dtype(b, dtype)
end

-- a op b; rop is op with its operands swapped, for a number a; where there is none (pow) a
-- number a becomes a tensor full of it.
local function binary_into(fn, op, rop, out, a, b)
  if type(a) ~= 'number' and type(b) ~= 'number' then
    broadcast.expect_operand(a, fn, 'a')
    broadcast.expect_operand(b, fn, 'b')
    if a.scalar_type ~= b.scalar_type or not is_floating[a.scalar_type] then
      a, b = promote(fn, op, out, a, b, a, b)
    end
    a, b = broadcast.operands(fn, out, a, b)
    out = like(fn, out, a)
    local dst = dense(out)
    check(C.fused_binary(op, dst, a, b))
    return finish(out, dst)
  end
  local x, y, arg = a, b, 'a' -- x: the tensor operand
  if type(a) == 'number' then x, y, arg = b, a, 'b' end
  broadcast.expect_operand(x, fn, arg)
  if not is_floating[x.scalar_type] then
    a, b = promote(fn, op, out, a, b, x, y)
    if arg == 'a' then x = a else x = b end
  end
  x = contiguous(x)
  out = like(fn, out, x)
  local dst = dense(out)
  if arg == 'a' then
    check(C.fused_binary_scalar(op, dst, x, y))
  elseif rop then
    check(C.fused_binary_scalar(rop, dst, x, y))
  else
    if rawequal(dst, x) then x = x:clone() end -- out is b: keep b before dst is filled
    check(C.fused_fill(dst, y))
    check(C.fused_binary(op, dst, dst, x))
  end
  return finish(out, dst)
end

-- One op and its in-place form per row of C's list (fused.h's FUSED_BINARY_OPS), but rsub and
-- rdiv: listed after sub and div, whose swapped forms they are, they are no op of their own.
for op = 0, C.FUSED_NUM_BINARY_OPS - 1 do
  local info = C.fused_binary_op_info_of(op)
  local name, rop = ffi.string(info.name), info.swapped >= 0 and info.swapped or nil
  local inplace = name .. '_'
  if not (rop and rop < op) then
    M[name] = function(a, b, opts)
      return binary_into(name, op, rop, out_.option(opts, name), a, b)
    end
    M[inplace] = function(a, b)
      return binary_into(inplace, op, rop, expect_writable(a, inplace, 'self'), a, b)
    end
  end
end

-- clamp(t, min, max, opts): either bound may be nil (not both), a number or a tensor. An int64
-- tensor's number bound must be one of its values (0.5 is an error, not a float32 result), so
-- that the clamped tensor stays int64 and exact.
local function clamp_bounds(fn, t, min, max)
  expect(t, fn, 'input')
  if min ~= nil and type(min) ~= 'number' then broadcast.expect_operand(min, fn, 'min') end
  if max ~= nil and type(max) ~= 'number' then broadcast.expect_operand(max, fn, 'max') end
  if min == nil and max == nil then
    blame(string.format("%s: expected 'min' or 'max' (or both), got neither", fn))
  end
  if argcheck.is_tensor(t) and t.scalar_type == INT64 then
    if type(min) == 'number' then argcheck.expect_scalar(min, INT64, fn, 'min') end
    if type(max) == 'number' then argcheck.expect_scalar(max, INT64, fn, 'max') end
  end
end

function M.clamp(t, min, max, opts)
  clamp_bounds('clamp', t, min, max)
  if min == nil then return M.minimum(t, max, opts) end
  local r = M.maximum(t, min, opts)
  if max == nil then return r end
  return M.minimum_(r, max)
end

function M.clamp_(t, min, max)
  clamp_bounds('clamp_', t, min, max)
  expect_writable(t, 'clamp_', 'self')
  if min ~= nil then M.maximum_(t, min) end
  if max ~= nil then M.minimum_(t, max) end
  return t
end

return M
