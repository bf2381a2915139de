-- The loss of rows of log-probabilities (N × C, contiguous) against N int64 class indices
-- from 1, with PyTorch's options, shared by nll_loss and cross_entropy (not public itself):
--   ignore_index: a target equal to it counts for nothing (no loss, no gradient); default none
--   reduction: 'mean' (over the targets not ignored: NaN when all are, as PyTorch), 'sum', or
--     'none' (one loss per row)
--   label_smoothing ε in [0, 1]: a row's loss is (1 - ε) · -logp[target] + ε · mean_c -logp[c]
--     (PyTorch's CrossEntropyLoss docs: the target mixed with the uniform distribution)
-- forward returns one element (mean, sum) or N (none); backward the gradient to the
-- log-probabilities for grad_output, a number (mean, sum; 1 by default) or N values (none).
local ffi = require 'ffi'
local ops = require 'fused.ops'
local options = require 'fused.options'
local factory = require 'fused.factory'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'

local M = {}

local reductions = { mean = true, sum = true, none = true }

-- The options in opts, whose keys must be among accepted (ignore_index, reduction,
-- label_smoothing and the caller's own), checked; errors are blamed on the user's line.
function M.options(opts, fn, accepted)
  opts = options.check(opts, fn, accepted)
  local o = { ignore_index = opts.ignore_index, reduction = opts.reduction or 'mean',
              label_smoothing = opts.label_smoothing or 0 }
  local ii = o.ignore_index
  if ii ~= nil and (type(ii) ~= 'number' or ii ~= math.floor(ii)) then
    blame(string.format("%s: option 'ignore_index' expected an integer, got %s", fn,
                        argcheck.type_name(ii)))
  end
  if not reductions[o.reduction] then
    blame(string.format("%s: option 'reduction' expected 'mean', 'sum' or 'none', got %s", fn,
                        tostring(o.reduction)))
  end
  local eps = o.label_smoothing
  if type(eps) ~= 'number' or not (eps >= 0 and eps <= 1) then
    blame(string.format("%s: option 'label_smoothing' expected a number in [0, 1], got %s", fn,
                        tostring(eps)))
  end
  return o
end

-- The rows that count (bool N × 1), their number, and the targets with the ignored set to 1
-- (N × 1, safe to gather); every target that counts is checked to be a class.
local function targets_that_count(log_probs, targets, o, fn)
  local n, classes = log_probs:size(1), log_probs:size(2)
  local host = targets:cpu():contiguous()
  local v = ffi.cast('int64_t *', host.data)
  local count = 0
  for i = 0, n - 1 do
    local c = tonumber(v[i])
    if c ~= o.ignore_index then
      if c < 1 or c > classes then
        blame(string.format("%s: argument 'targets' expected class indices 1 to %d%s, got %d at position %d",
                            fn, classes, o.ignore_index and ' or ignore_index ' .. o.ignore_index or '',
                            c, i + 1))
      end
      count = count + 1
    end
  end
  local column = targets:view(n, 1)
  local counts = ops.ne(column, o.ignore_index or 0) -- 0 is no class: without one, all count
  return counts, count, ops.where(counts, column, 1)
end

function M.forward(log_probs, targets, o, fn)
  local n, classes = log_probs:size(1), log_probs:size(2)
  local counts, count, safe = targets_that_count(log_probs, targets, o, fn)
  local eps = o.label_smoothing
  local rows = ops.gather(log_probs, 2, safe):mul_(eps - 1)
  if eps > 0 then rows:add_(ops.sum(log_probs, 2):mul_(-eps / classes)) end
  rows = ops.where(counts, rows, 0)
  if o.reduction == 'none' then return rows:view(n) end
  local total = ops.sum(rows, 1):view(1)
  return o.reduction == 'mean' and total:div_(count) or total
end

function M.backward(log_probs, targets, grad_output, o, fn)
  local n, classes = log_probs:size(1), log_probs:size(2)
  local counts, count, safe = targets_that_count(log_probs, targets, o, fn)
  local scale -- N × 1: each row's share of grad_output
  if o.reduction == 'none' then
    argcheck.expect(grad_output, fn, 'grad_output')
    if grad_output:numel() ~= n then
      blame(string.format("%s: argument 'grad_output' expected %d values (one per target), got %d",
                          fn, n, grad_output:numel()))
    end
    scale = ops.where(counts, grad_output:to(log_probs.dtype):contiguous():view(n, 1), 0)
  else
    local g = grad_output == nil and 1 or argcheck.expect_number(grad_output, fn, 'grad_output')
    -- No target counting: no gradient (PyTorch's zeros), where the mean is NaN.
    if o.reduction == 'mean' then g = count > 0 and g / count or 0 end
    scale = counts:to(log_probs.dtype):mul_(g)
  end
  local ids = factory.arange(1, classes + 1, { dtype = 'int64', device = log_probs.device })
  local d = ops.eq(ids:view(1, classes), safe):to(log_probs.dtype):mul_(o.label_smoothing - 1)
  if o.label_smoothing > 0 then d:add_(-o.label_smoothing / classes) end
  return d:mul_(scale)
end

return M
