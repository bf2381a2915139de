-- The negative log-likelihood of rows of log-probabilities (N × C, as log_softmax gives)
-- against N int64 class indices from 1: -log_probs[i, targets[i]], reduced. opts as PyTorch's
-- nll_loss: ignore_index, reduction 'mean' | 'sum' | 'none' (class_loss.lua says them).
-- nll_loss_backward's opts also take grad_output: a number for mean and sum (1 by default),
-- N values for 'none'. The rows and the targets go as they are: nn.NLLLoss reads PyTorch's
-- (N, C, d...) layout into them.
local class_loss = require 'fused.functional.class_loss'
local args = require 'fused.functional.args'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'

local M = {}

local function inputs(fn, log_probs, targets)
  args.expect_floating(log_probs, fn, 'log_probs')
  if log_probs.ndim ~= 2 then
    blame(string.format("%s: argument 'log_probs' expected N x C, got [%s]", fn,
                        table.concat(log_probs:shape(), ', ')))
  end
  argcheck.expect_dtype(targets, 'int64', fn, 'targets')
  if targets:numel() ~= log_probs:size(1) then
    blame(string.format("%s: argument 'targets' expected %d class indices (one per row), got %d",
                        fn, log_probs:size(1), targets:numel()))
  end
  return log_probs:contiguous(), targets:to(log_probs.device):contiguous():view(-1)
end

-- M.as: the functions with the public name to raise errors under first, for the modules.
M.as = {}

function M.as.nll_loss(fn, log_probs, targets, opts)
  log_probs, targets = inputs(fn, log_probs, targets)
  local o = class_loss.options(opts, fn, { 'ignore_index', 'reduction' })
  return class_loss.forward(log_probs, targets, o, fn)
end

function M.as.nll_loss_backward(fn, log_probs, targets, opts)
  log_probs, targets = inputs(fn, log_probs, targets)
  local o = class_loss.options(opts, fn, { 'ignore_index', 'reduction', 'grad_output' })
  return class_loss.backward(log_probs, targets, opts and opts.grad_output, o, fn)
end

function M.nll_loss(log_probs, targets, opts, ...)
  args.no_more('nll_loss', 3, ...)
  return M.as.nll_loss('nll_loss', log_probs, targets, opts)
end

function M.nll_loss_backward(log_probs, targets, opts, ...)
  args.no_more('nll_loss_backward', 3, ...)
  return M.as.nll_loss_backward('nll_loss_backward', log_probs, targets, opts)
end

return M
