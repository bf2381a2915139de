-- Cross-entropy as functions: log-softmax and the negative log-likelihood, averaged over the
-- rows. logits N × C; targets N class indices 1..C (counted from 1), int64 on the logits'
-- device. cross_entropy returns a one-element tensor (N for reduction = 'none'),
-- cross_entropy_backward the gradient to the logits. opts: out, and PyTorch's ignore_index,
-- reduction ('mean' | 'sum' | 'none') and label_smoothing (class_loss.lua says them); the
-- backward's also grad_output (a number, 1 by default; N values for 'none'). Without those
-- three, the two run fused in one kernel (stable for any finite logits, allocates nothing);
-- with any, they are log_softmax, then class_loss's NLL.
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local ops = require 'fused.ops'
local class_loss = require 'fused.functional.class_loss'
local args = require 'fused.functional.args'

local C, check = lib.C, args.check
local M = {}

local one = out_.sizes()
one[0] = 1

local function inputs(fn, logits, targets)
  return out_.contiguous(args.expect_floating(logits, fn, 'logits')),
         out_.contiguous(argcheck.expect_dtype(targets, 'int64', fn, 'targets'))
end

local function fused_in_c(o)
  return o.ignore_index == nil and o.reduction == 'mean' and o.label_smoothing == 0
end

-- opts.out holds the result when given.
local function into(opts, result)
  local out = opts and opts.out
  return out and out:copy_(result) or result
end

-- M.as: the functions with the public name to raise errors under first, for the modules.
M.as = {}

function M.as.cross_entropy(fn, logits, targets, opts)
  logits, targets = inputs(fn, logits, targets)
  local o = class_loss.options(opts, fn, { 'ignore_index', 'reduction', 'label_smoothing', 'out' })
  if not fused_in_c(o) then
    return into(opts, class_loss.forward(ops.log_softmax(logits, 2), targets, o, fn))
  end
  local out = opts and opts.out
  local loss = out_.result(fn, out, 1, one, logits.scalar_type, logits.device_type)
  check(C.fused_cross_entropy_forward(loss, logits, targets), fn)
  return loss
end

function M.as.cross_entropy_backward(fn, logits, targets, opts)
  logits, targets = inputs(fn, logits, targets)
  local o = class_loss.options(opts, fn, { 'ignore_index', 'reduction', 'label_smoothing', 'out',
                                          'grad_output' })
  local grad_output = opts and opts.grad_output
  if not fused_in_c(o) then
    local log_probs = ops.log_softmax(logits, 2)
    local d = class_loss.backward(log_probs, targets, grad_output, o, fn)
    return into(opts, ops.log_softmax_backward(d, log_probs, 2))
  end
  local g = grad_output == nil and 1 or argcheck.expect_number(grad_output, fn, 'grad_output')
  local d = out_.like(fn, opts and opts.out, logits)
  check(C.fused_cross_entropy_backward(d, logits, targets, g), fn)
  return d
end

function M.cross_entropy(logits, targets, opts, ...)
  args.no_more('cross_entropy', 3, ...)
  return M.as.cross_entropy('cross_entropy', logits, targets, opts)
end

function M.cross_entropy_backward(logits, targets, opts, ...)
  args.no_more('cross_entropy_backward', 3, ...)
  return M.as.cross_entropy_backward('cross_entropy_backward', logits, targets, opts)
end

return M
