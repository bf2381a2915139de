-- Cross-entropy of logits against class indices: log-softmax and the negative log-likelihood.
--
--   local criterion = fused.nn.CrossEntropyLoss()   -- or ({ignore_index =, reduction =, label_smoothing =})
--   local loss = criterion:forward(logits, targets)    -- a Lua number (a tensor for 'none')
--   local d_logits = criterion:backward(logits, targets[, d_loss])
--
-- logits are class-last (N × C or T × B × C) or PyTorch's (N, C, d1, ...) (class_rows.lua
-- states the rule); targets are class indices 1..C (counted from 1, as in Lua and Torch7), as
-- a Lua table (nested or flat) or a tensor (an int64 tensor on the logits' device is used as it
-- is; anything else is converted). The options are PyTorch's (fused.functional.class_loss):
-- ignore_index (none by default: unlike PyTorch's -100, a target outside 1..C is an error
-- unless it is ignore_index), reduction 'mean' | 'sum' | 'none', label_smoothing. Like
-- Torch7's criterions it keeps nothing for backward: backward takes the same arguments, and
-- d_loss (a number, 1 by default; the targets' shape for 'none').
local class_loss = require 'fused.functional.class_loss'
local class_rows = require 'fused.nn.class_rows'
local cross_entropy = require 'fused.functional.cross_entropy'
local inputs = require 'fused.nn.inputs'
local Module = require 'fused.nn.Module'

local CrossEntropyLoss = Module:extend('CrossEntropyLoss')
CrossEntropyLoss.criterion = true -- keeps nothing: forward and backward take (input, target)

function CrossEntropyLoss:__init(opts, ...)
  inputs.no_more('CrossEntropyLoss', 1, ...)
  self.options = class_loss.options(opts, 'CrossEntropyLoss',
                                    { 'ignore_index', 'reduction', 'label_smoothing' })
end

-- The functional's options: the module's, and out or grad_output.
local function with(o, key, value)
  return { ignore_index = o.ignore_index, reduction = o.reduction,
           label_smoothing = o.label_smoothing, [key] = value }
end

function CrossEntropyLoss:forward(logits, targets, ...)
  inputs.no_more('CrossEntropyLoss:forward', 2, ...)
  local rows, t, shape = class_rows(logits, targets, 'CrossEntropyLoss:forward', 'logits')
  local loss = cross_entropy.as.cross_entropy('CrossEntropyLoss:forward', rows, t,
                                              with(self.options, 'out', self:buffer('loss', logits)))
  self.buffers.loss = loss
  if self.options.reduction == 'none' then return loss:view(shape) end
  return loss:item()
end

function CrossEntropyLoss:backward(logits, targets, d_loss)
  local fn = 'CrossEntropyLoss:backward'
  local rows, t, shape, back = class_rows(logits, targets, fn, 'logits')
  inputs.d_loss(d_loss, self.options.reduction, shape, logits, fn)
  if self.options.reduction == 'none' and d_loss ~= nil then d_loss = d_loss:contiguous():view(-1) end
  local opts = with(self.options, 'grad_output', d_loss)
  opts.out = self:buffer('gradInput', logits)
  self.buffers.gradInput = cross_entropy.as.cross_entropy_backward(fn, rows, t, opts)
  return back(self.buffers.gradInput)
end

return CrossEntropyLoss
