-- What optim's functions share: the gradient's checks and the state's tensors, zeros shaped
-- as x (Torch7's x.new(dfdx:size()):zero()).
local fused = require 'fused'

local M = {}

-- Calls opfunc(x) and checks it gave f(x), a number, and df/dx, a tensor of x's shape.
function M.evaluate(fn, opfunc, x)
  if type(opfunc) ~= 'function' then
    error(string.format("optim.%s: argument 'opfunc' expected a function returning f(x), df/dx, got %s", fn, type(opfunc)), 3)
  end
  if not fused.is_tensor(x) then
    error(string.format("optim.%s: argument 'x' expected a tensor (the flat parameters: getParameters()), got %s", fn, type(x)), 3)
  end
  local fx, dfdx = opfunc(x)
  if not fused.is_tensor(dfdx) or dfdx:numel() ~= x:numel() then
    error(string.format("optim.%s: opfunc's second result expected df/dx, a tensor of x's %d elements, got %s", fn,
                        x:numel(), fused.is_tensor(dfdx) and dfdx:numel() .. ' elements' or type(dfdx)), 3)
  end
  return fx, dfdx
end

function M.zeros(like) return fused.zeros(like:shape(), { dtype = like.dtype, device = like.device }) end

-- x + alpha y into x (Torch7's x:add(alpha, y)).
function M.axpy(x, alpha, y) return x:add_(y, { alpha = alpha }) end

function M.dot(a, b) return fused.sum(fused.mul(a, b)) end

return M
