-- Cross-entropy as functions: log-softmax and the negative log-likelihood fused in C (stable
-- for any finite logits), averaged over the rows. logits N × C; targets N class indices 1..C
-- (counted from 1), int64 on the logits' device. cross_entropy returns a
-- one-element tensor, cross_entropy_backward the gradient of that mean. {out = t} as every op.
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local out_ = require 'fused.ops.out'

local C, check, expect = lib.C, lib.check, tensor.expect
local M = {}

local one = out_.sizes()
one[0] = 1

local function inputs(fn, logits, targets)
  return out_.contiguous(expect(logits, fn, 'logits')),
         out_.contiguous(tensor.expect_dtype(targets, 'int64', fn, 'targets'))
end

function M.cross_entropy(logits, targets, opts)
  local fn = 'cross_entropy'
  logits, targets = inputs(fn, logits, targets)
  local loss = out_.result(fn, out_.option(opts, fn), 1, one, logits.scalar_type, logits.device_type)
  check(C.fused_cross_entropy_forward(loss, logits, targets))
  return loss
end

function M.cross_entropy_backward(logits, targets, opts)
  local fn = 'cross_entropy_backward'
  logits, targets = inputs(fn, logits, targets)
  local d = out_.like(fn, out_.option(opts, fn), logits)
  check(C.fused_cross_entropy_backward(d, logits, targets, 1))
  return d
end

return M
