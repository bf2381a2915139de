-- One gradient rule per op of the op layer, by the op's name (torch-autograd's gradfuns), from
-- one file per kind of op. A rule is { backward = function(node, g) -> gradients per argument,
-- forward = f (optional: how the op runs while recorded), multi = true (g: a list, one per
-- result), cpu_only = <the op its backward needs, CPU only yet> }; a string says why the op
-- carries no gradient (comparisons, indices).
local M = { of = {}, why = {} }

for _, kind in ipairs({ 'pointwise', 'reduce', 'linalg', 'softmax', 'views', 'join', 'select',
                        'scan' }) do
  for name, rule in pairs(require('fused.autograd.rules.' .. kind)) do
    if type(rule) == 'string' then M.of[name], M.why[name] = false, rule else M.of[name] = rule end
  end
end

-- Tensor methods that are not ops of the op layer but the tape wraps: the views and conversions
-- above, and the writes in place (refused on recorded tensors).
M.TENSOR = {}
for name, rule in pairs(M.of) do M.TENSOR[name] = rule ~= nil end
M.IN_PLACE = { copy = true, fill = true, zero = true, uniform = true, normal = true, index_set = true }
-- How an error shows a write the user made without a method.
M.SHOWN = { index_set = 't[k] = v' }
for _, name in ipairs({ 'copy', 'fill', 'zero', 'uniform', 'normal', 'copy_', 'fill_', 'zero_',
                        'uniform_', 'normal_' }) do
  M.TENSOR[name] = true
end
return M
