-- fused.optim.clip_grad_norm(tensors, max_norm[, {norm_type =, error_if_nonfinite =}])
-- -> total_norm, as torch.nn.utils.clip_grad_norm_:
--   clip_grad_norm(model:parameters(), 1.0)  -- PyTorch's call: the parameters' gradients
--   clip_grad_norm(grads, 1.0)               -- the gradients themselves (fused's, Torch7's)
-- A tensor that a module registered as a parameter (nn/gradients.lua) stands for its gradient
-- (a parameter without one is skipped, as PyTorch skips grad None); any other tensor is a
-- gradient. The total norm is the norm_type-norm (2 by default; math.huge: the largest |g|) of
-- all gradients together, each tensor's norm taken in float64 (sum of squares for 2); when it
-- exceeds max_norm every gradient is scaled in place by max_norm / (total_norm + 1e-6). A
-- norm that is not finite is an error with error_if_nonfinite, else returned with the
-- gradients left as they are, for the caller to report (PyTorch would scale them by NaN or 0).
local ops = require 'fused.ops'
local argcheck = require 'fused.check'
local options = require 'fused.options'
local gradients = require 'fused.nn.gradients'

local FN = 'clip_grad_norm'

-- The gradients the list names, each once (a parameter and its gradient both given, or a tied
-- parameter twice, is clipped once).
local function gradients_of(list)
  local grads, seen = {}, {}
  for i, t in ipairs(list) do
    argcheck.expect(t, FN, 'grads[' .. i .. ']')
    local g = gradients.of(t)
    if g == nil then g = t end
    if g and not seen[g] then
      seen[g] = true
      grads[#grads + 1] = g
    end
  end
  return grads
end

-- An argument after the options is an error, as for every op (check.no_extra).
return argcheck.no_extra(FN, function(grads, max_norm, opts)
  if type(grads) ~= 'table' or not argcheck.sequence_length(grads) or #grads == 0 then
    error("clip_grad_norm: argument 'grads' expected a non-empty list of tensors (the parameters "
          .. 'or their gradients), got ' .. (type(grads) ~= 'table' and argcheck.type_name(grads)
              or next(grads) == nil and 'an empty list' or argcheck.show_list(grads)), 2)
  end
  if type(max_norm) ~= 'number' or not (max_norm > 0) then
    error("clip_grad_norm: argument 'max_norm' expected a number > 0, got " .. tostring(max_norm),
          2)
  end
  opts = options.check(opts, FN, { 'norm_type', 'error_if_nonfinite' })
  local p = opts.norm_type == nil and 2 or opts.norm_type
  if type(p) ~= 'number' or not (p > 0) then
    error("clip_grad_norm: option 'norm_type' expected a number > 0 (math.huge for the max), got "
          .. tostring(p), 2)
  end
  if opts.error_if_nonfinite ~= nil and type(opts.error_if_nonfinite) ~= 'boolean' then
    error("clip_grad_norm: option 'error_if_nonfinite' expected a boolean, got "
          .. type(opts.error_if_nonfinite), 2)
  end
  local grads = gradients_of(grads)
  local total = 0
  for _, g in ipairs(grads) do
    if p == 2 then
      total = total + ops.sum_squares(g)
    elseif p == math.huge then
      total = math.max(total, ops.norm(g, p))
    else
      total = total + ops.norm(g, p) ^ p
    end
  end
  if p == 2 then total = math.sqrt(total) elseif p ~= math.huge then total = total ^ (1 / p) end
  local finite = total == total and total < math.huge
  if not finite and opts.error_if_nonfinite then
    error(string.format('clip_grad_norm: the total norm of order %g of the gradients is %s, so they '
                        .. 'cannot be clipped (error_if_nonfinite)', p, tostring(total)), 2)
  end
  local scale = max_norm / (total + 1e-6)
  if scale < 1 and finite then
    for _, g in ipairs(grads) do g:mul_(scale) end
  end
  return total
end)
