-- The negative log-likelihood of log-probabilities (as nn.LogSoftmax gives) against class
-- indices: -input[i, targets[i]], reduced, as torch.nn.NLLLoss.
--
--   local criterion = fused.nn.NLLLoss()     -- or ({ignore_index =, reduction =})
--   local loss = criterion:forward(log_probs, targets)   -- a Lua number (a tensor for 'none')
--   local d_log_probs = criterion:backward(log_probs, targets[, d_loss])
--
-- Layouts, targets and options as CrossEntropyLoss's (but no label_smoothing): class-last or
-- PyTorch's (N, C, d1, ...), indices from 1, reduction 'mean' | 'sum' | 'none', ignore_index
-- (none by default). backward takes the same arguments, and d_loss (a number, 1 by default; the
-- targets' shape for 'none').
local class_loss = require 'fused.functional.class_loss'
local class_rows = require 'fused.nn.class_rows'
local nll_loss = require 'fused.functional.nll_loss'
local inputs = require 'fused.nn.inputs'
local Module = require 'fused.nn.Module'

local NLLLoss = Module:extend('NLLLoss')
NLLLoss.criterion = true -- keeps nothing: forward and backward take (input, target)

function NLLLoss:__init(opts, ...)
  inputs.no_more('NLLLoss', 1, ...)
  self.options = class_loss.options(opts, 'NLLLoss', { 'ignore_index', 'reduction' })
end

function NLLLoss:forward(input, targets, ...)
  inputs.no_more('NLLLoss:forward', 2, ...)
  local rows, t, shape = class_rows(input, targets, 'NLLLoss:forward', 'input')
  local o = self.options
  local loss = nll_loss.as.nll_loss('NLLLoss:forward', rows, t,
                                    { ignore_index = o.ignore_index, reduction = o.reduction })
  if o.reduction == 'none' then return loss:view(shape) end
  return loss:item()
end

function NLLLoss:backward(input, targets, d_loss)
  local fn = 'NLLLoss:backward'
  local rows, t, shape, back = class_rows(input, targets, fn, 'input')
  local o = self.options
  inputs.d_loss(d_loss, o.reduction, shape, input, fn)
  if o.reduction == 'none' and d_loss ~= nil then d_loss = d_loss:contiguous():view(-1) end
  return back(nll_loss.as.nll_loss_backward(fn, rows, t, { ignore_index = o.ignore_index,
                                                          reduction = o.reduction,
                                                          grad_output = d_loss }))
end

return NLLLoss
