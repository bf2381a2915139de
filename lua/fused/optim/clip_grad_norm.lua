-- fused.optim.clip_grad_norm(grads, max_norm) -> total_norm, as torch.nn.utils.clip_grad_norm_:
-- the L2 norm of all gradients together (each tensor's sum of squares accumulated in float64);
-- when it exceeds max_norm every gradient is scaled in place by max_norm / (total_norm + 1e-6).
-- A norm that is not finite is returned with the gradients left as they are, for the caller to
-- report.
local ops = require 'fused.ops'
local argcheck = require 'fused.check'

return function(grads, max_norm)
  if type(grads) ~= 'table' or not argcheck.sequence_length(grads) or #grads == 0 then
    error("clip_grad_norm: argument 'grads' expected a non-empty list of tensors, got "
          .. (type(grads) ~= 'table' and argcheck.type_name(grads)
              or next(grads) == nil and 'an empty list' or argcheck.show_list(grads)), 2)
  end
  if type(max_norm) ~= 'number' or not (max_norm > 0) then
    error("clip_grad_norm: argument 'max_norm' expected a number > 0, got " .. tostring(max_norm),
          2)
  end
  local total = 0
  for i, g in ipairs(grads) do
    argcheck.expect(g, 'clip_grad_norm', 'grads[' .. i .. ']')
    total = total + ops.sum_squares(g)
  end
  total = math.sqrt(total)
  local scale = max_norm / (total + 1e-6)
  if scale < 1 and total < math.huge then
    for _, g in ipairs(grads) do g:mul_(scale) end
  end
  return total
end
