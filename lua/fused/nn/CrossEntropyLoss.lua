-- Cross-entropy of logits against class indices, log-softmax and the negative log-likelihood
-- fused in C (stable for any finite logits), averaged over the rows.
--
--   local criterion = fused.nn.CrossEntropyLoss()
--   local loss = criterion:forward(logits, targets)    -- a Lua number
--   local d_logits = criterion:backward(logits, targets)
--
-- logits are N × C or T × B × C; targets hold N class indices 1..C (counted from 1, as in Lua
-- and Torch7), as a Lua table (nested or flat) or a tensor of any shape (an int64 tensor on the
-- logits' device is used as it is; anything else is converted). Like Torch7's criterions it
-- keeps nothing for backward: backward takes the same arguments.
local functional = require 'fused.functional'
local Module = require 'fused.nn.Module'
local tensor = require 'fused.tensor'

local CrossEntropyLoss = Module:extend('CrossEntropyLoss')

-- The logits as rows (N × C) and the targets as N int64 values on their device (an int64
-- tensor, or a table, whose conversion to int64 rejects a value that is not an integer).
local function rows_and_targets(logits, targets, fn)
  tensor.expect(logits, fn, 'logits')
  if logits.ndim ~= 2 and logits.ndim ~= 3 then
    error(string.format("%s: argument 'logits' expected N x C or T x B x C, got [%s]", fn,
                        table.concat(logits:shape(), ', ')), 3)
  end
  local classes = tonumber(logits.sizes[logits.ndim - 1])
  local rows = logits:contiguous():view(-1, classes)
  local t = targets
  if type(t) == 'table' then t = tensor.tensor(t, { dtype = 'int64' }) end
  tensor.expect_dtype(t, 'int64', fn, 'targets')
  t = t:to(logits.device)
  if t:numel() ~= rows:size(1) then
    error(string.format("%s: argument 'targets' expected %d class indices (one per row of the logits), got %d",
                        fn, rows:size(1), t:numel()), 3)
  end
  return rows, t:contiguous():view(-1)
end

function CrossEntropyLoss:forward(logits, targets)
  local rows, t = rows_and_targets(logits, targets, 'CrossEntropyLoss:forward')
  self.buffers.loss = functional.cross_entropy(rows, t, { out = self:buffer('loss', logits) })
  return self.buffers.loss:item()
end

function CrossEntropyLoss:backward(logits, targets)
  local rows, t = rows_and_targets(logits, targets, 'CrossEntropyLoss:backward')
  self.buffers.gradInput = functional.cross_entropy_backward(rows, t,
                                                             { out = self:buffer('gradInput', logits) })
  return self.buffers.gradInput:view(logits:shape())
end

return CrossEntropyLoss
