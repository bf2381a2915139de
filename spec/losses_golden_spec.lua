-- nn.CrossEntropyLoss and nn.NLLLoss against PyTorch's own (spec/golden/losses/make.py), float64
-- to 1e-10: reductions, ignore_index, label_smoothing, in the (N, C), (N, C, d) and
-- (N, C, d1, d2) layouts, on logits with +-1000 in them.
local helper = require 'spec.helper'
local fused = helper.fused
local nn = fused.nn

local function golden(name, dtype) return helper.load_golden('losses', name, dtype) end

local CASES = {
  ce_mean = { 'CrossEntropyLoss', {} },
  ce_sum = { 'CrossEntropyLoss', { reduction = 'sum' } },
  ce_none = { 'CrossEntropyLoss', { reduction = 'none' } },
  ce_ignore = { 'CrossEntropyLoss', { ignore_index = -100 } },
  ce_smooth = { 'CrossEntropyLoss', { label_smoothing = 0.2 } },
  ce_smooth_ignore_sum = { 'CrossEntropyLoss', { label_smoothing = 0.3, ignore_index = -100, reduction = 'sum' } },
  ce_smooth_ignore_none = { 'CrossEntropyLoss', { label_smoothing = 0.1, ignore_index = -100, reduction = 'none' } },
  nll_mean = { 'NLLLoss', {} },
  nll_sum = { 'NLLLoss', { reduction = 'sum' } },
  nll_ignore_none = { 'NLLLoss', { ignore_index = -100, reduction = 'none' } },
  nll_ignore = { 'NLLLoss', { ignore_index = -100 } },
}

describe('CrossEntropyLoss and NLLLoss match PyTorch', function()
  for _, layout in ipairs({ 'rows', 'seq', 'image' }) do
    for _, case in ipairs(helper.sorted_keys(CASES)) do
      local class, opts = CASES[case][1], CASES[case][2]
      it(layout .. ' ' .. case, function()
        local logits = golden(layout .. '_logits')
        local targets = golden(layout .. (opts.ignore_index and '_targets_ignored' or '_targets'), 'int64')
        local input = class == 'NLLLoss' and fused.log_softmax(logits, 2) or logits
        local criterion = nn[class](opts)
        local loss = criterion:forward(input, targets)
        local want = golden(layout .. '_' .. case .. '_loss')
        local d_loss
        if opts.reduction == 'none' then
          helper.assert_close(loss, want:view(targets:shape()), 1e-10, 'loss')
          d_loss = golden(layout .. '_d_loss')
        else
          assert(math.abs(loss - want:item()) <= 1e-10 * math.abs(want:item()),
                 string.format('loss %.17g, PyTorch %.17g', loss, want:item()))
        end
        helper.assert_close(criterion:backward(input, targets, d_loss),
                            golden(layout .. '_' .. case .. '_grad'), 1e-10, 'gradient')
      end)
    end
  end
end)
