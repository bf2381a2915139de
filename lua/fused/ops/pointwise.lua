-- Elementwise ops: fused.tanh(t), t:tanh(), t:tanh_() in place; fused.add(a, b), a:add(b),
-- a:add_(b). Either operand of a binary op may be a number; two tensors broadcast (NumPy's
-- rules, ops/broadcast.lua). Every op takes {out = t} last (ops/out.lua). A unary op's input
-- that is a view is made contiguous first; an in-place op on a view computes into a temporary
-- and copies back. clamp(t, min, max) is maximum then minimum.
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local out_ = require 'fused.ops.out'
local broadcast = require 'fused.ops.broadcast'

local C, check, expect, expect_writable = lib.C, lib.check, tensor.expect, tensor.expect_writable
local contiguous, like, dense, finish = out_.contiguous, out_.like, out_.dense, out_.finish
local M = {}

local function unary_into(fn, op, out, t, alpha)
  t = contiguous(expect(t, fn, 'input'))
  out = like(fn, out, t)
  local dst = dense(out)
  check(C.fused_unary(op, dst, t, alpha))
  return finish(out, dst)
end

-- alpha is ELU's (default 1): elu(t, alpha, opts); the others take (t, opts), so that
-- t:exp(2) is an error rather than ignored.
local unary_ops = {
  neg = C.FUSED_NEG, exp = C.FUSED_EXP, log = C.FUSED_LOG, tanh = C.FUSED_TANH,
  sigmoid = C.FUSED_SIGMOID, elu = C.FUSED_ELU, relu = C.FUSED_RELU, sqrt = C.FUSED_SQRT,
  abs = C.FUSED_ABS, d_exp = C.FUSED_D_EXP, d_log = C.FUSED_D_LOG, d_tanh = C.FUSED_D_TANH,
  d_sigmoid = C.FUSED_D_SIGMOID, d_elu = C.FUSED_D_ELU, d_relu = C.FUSED_D_RELU,
}
local function expect_alpha(alpha, fn)
  return tensor.expect_number(alpha == nil and 1 or alpha, fn, 'alpha', 3)
end
-- t:exp(2) says what is wrong rather than taking 2 for options (a table, when allowed).
local function expect_no_argument(x, fn, options_allowed)
  if x ~= nil and not (options_allowed and type(x) == 'table') then
    error(string.format("%s: expected one tensor, got a second argument (%s)", fn,
                        tensor.type_name(x)), 3)
  end
  return x
end
for name, op in pairs(unary_ops) do
  local inplace = name .. '_'
  if name == 'elu' or name == 'd_elu' then
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

-- a op b; rop is op with its operands swapped, for a number a; where there is none (pow) a
-- number a becomes a tensor full of it.
local function binary_into(fn, op, rop, out, a, b)
  if type(a) ~= 'number' and type(b) ~= 'number' then
    a, b = broadcast.operands(fn, out, broadcast.expect_operand(a, fn, 'a'), broadcast.expect_operand(b, fn, 'b'))
    out = like(fn, out, a)
    local dst = dense(out)
    check(C.fused_binary(op, dst, a, b))
    return finish(out, dst)
  end
  local x, y, arg = a, b, 'a' -- x: the tensor operand
  if type(a) == 'number' then x, y, arg = b, a, 'b' end
  x = contiguous(broadcast.expect_operand(x, fn, arg))
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

local binary_ops = {
  add = { C.FUSED_ADD, C.FUSED_ADD }, sub = { C.FUSED_SUB, C.FUSED_RSUB },
  mul = { C.FUSED_MUL, C.FUSED_MUL }, div = { C.FUSED_DIV, C.FUSED_RDIV },
  pow = { C.FUSED_POW }, maximum = { C.FUSED_MAX, C.FUSED_MAX },
  minimum = { C.FUSED_MIN, C.FUSED_MIN },
}
for name, ops in pairs(binary_ops) do
  local op, rop, inplace = ops[1], ops[2], name .. '_'
  M[name] = function(a, b, opts) return binary_into(name, op, rop, out_.option(opts, name), a, b) end
  M[inplace] = function(a, b)
    return binary_into(inplace, op, rop, expect_writable(a, inplace, 'self'), a, b)
  end
end

-- clamp(t, min, max, opts): either bound may be nil (not both), a number or a tensor.
local function clamp_bounds(fn, min, max)
  if min == nil and max == nil then
    error(string.format("%s: expected 'min' or 'max' (or both), got neither", fn), 3)
  end
end

function M.clamp(t, min, max, opts)
  clamp_bounds('clamp', min, max)
  if min == nil then return M.minimum(t, max, opts) end
  local r = M.maximum(t, min, opts)
  if max == nil then return r end
  return M.minimum_(r, max)
end

function M.clamp_(t, min, max)
  clamp_bounds('clamp_', min, max)
  expect_writable(t, 'clamp_', 'self')
  if min ~= nil then M.maximum_(t, min) end
  if max ~= nil then M.minimum_(t, max) end
  return t
end

return M
