-- Comparisons into bool tensors: fused.lt(a, b), a:lt(b), and eq ne le gt ge; either operand
-- may be a number, two tensors broadcast (ops/broadcast.lua) and compare in their promoted
-- dtype (dtype.lua's result_type). {out = t} last (a bool t).
-- There is no in-place form: the result's dtype is bool, not the operands'.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local broadcast = require 'fused.ops.broadcast'

local C, check = lib.C, argcheck.c_status
local BOOL = dt.dtypes.bool
local M = {}

-- flipped: the op with its operands swapped (a < b is b > a), for a number a.
local function compare_into(fn, op, flipped, out, a, b)
  if type(a) == 'number' then a, b, op = broadcast.expect_operand(b, fn, 'b'), a, flipped end
  broadcast.expect_operand(a, fn, 'a')
  if type(b) == 'number' then
    a = out_.contiguous(a)
    local dst = out_.target(fn, out, a.ndim, a.sizes, BOOL, a.device_type)
    check(C.fused_compare_scalar(op, dst, a, b))
    return out_.finish(out, dst)
  end
  b = broadcast.expect_operand(b, fn, 'b')
  a, b = dt.promoted(a, b)
  a, b = broadcast.operands(fn, out, a, b)
  local dst = out_.target(fn, out, a.ndim, a.sizes, BOOL, a.device_type)
  check(C.fused_compare(op, dst, a, b))
  return out_.finish(out, dst)
end

-- One per op of C's list (fused.h's FUSED_COMPARE_OPS).
for op = 0, C.FUSED_NUM_COMPARE_OPS - 1 do
  local info = C.fused_compare_op_info_of(op)
  local name, flipped = ffi.string(info.name), info.swapped
  M[name] = function(a, b, opts)
    return compare_into(name, op, flipped, out_.option(opts, name), a, b)
  end
end

return M
