-- Torch7's torch.f(...) forms of the maths (torch.exp(x), torch.add(x, y), torch.mm(a, b),
-- torch.sum(x, 2)): a new tensor, or, result first, into the tensor given first
-- (torch.exp(y, x), torch.add(z, x, y)), as TensorMath.lua's functions. The method forms
-- (th/torch/tensor.lua) compute them.
local fused = require 'fused'
local th_tensor = require 'fused.th.torch.tensor'
local types = require 'fused.th.torch.types'

local M = {}
local forms, into_kinds = th_tensor.forms, th_tensor.into_kinds
local is_tensor = types.is_tensor

local function kinds(...)
  local k = {}
  for i = 1, select('#', ...) do
    local a = select(i, ...)
    k[i] = is_tensor(a) and 'T' or type(a) == 'number' and 'n' or type(a)
  end
  return table.concat(k, ',')
end

-- An empty result of the first tensor argument's dtype and device.
local function fresh(...)
  for i = 1, select('#', ...) do
    local a = select(i, ...)
    if is_tensor(a) then return fused.zeros({ 0 }, { dtype = a.dtype, device = a.device }) end
  end
  return fused.zeros({ 0 }, { dtype = types.CLASSES[types.default()].dtype })
end

for name, accepted in pairs(into_kinds) do
  local form = forms[name]
  M[name] = function(first, ...)
    if is_tensor(first) and accepted[kinds(...)] then return form(first, ...) end
    return form(fresh(first, ...), first, ...)
  end
end

-- Reductions: torch.sum(x[, d]) as x:sum(d); torch.sum(y, x, d) into y.
for _, name in ipairs({ 'sum', 'prod', 'mean', 'cumsum', 'cumprod', 'max', 'min' }) do
  local form = forms[name]
  M[name] = function(first, ...)
    return form(first, ...)
  end
end
M.topk = forms.topk

-- The ops that mean the same in both (torch.sort(x), torch.std(x, 2), ...).
for _, name in ipairs({ 'sort', 'std', 'var', 'norm', 'squeeze', 'unsqueeze', 'transpose', 'view',
                        'reshape', 'narrow', 'select', 'clone', 'eq', 'ne', 'lt', 'le', 'gt', 'ge',
                        'nonzero', 'repeatTensor', 'gather', 'index_select', 'masked_select',
                        'log_softmax', 'softmax', 'numel' }) do
  M[name] = function(t, ...) return t[name](t, ...) end
end
M.index, M.maskedSelect = forms.index, forms.maskedSelect

-- torch.cat(a, b[, dim]) and torch.cat({a, b, ...}[, dim]): the last dim unless told, as Torch7.
function M.cat(a, b, dim)
  local list = a
  if is_tensor(a) then list, dim = { a, b }, dim else dim = b end
  if type(list) ~= 'table' or #list == 0 then
    error("torch.cat: expected two tensors or a list of tensors, then an optional dim", 2)
  end
  return fused.cat(list, dim or list[1].ndim)
end

-- torch.dot(a, b): the sum of the products, a number.
function M.dot(a, b) return fused.mul(a, b):sum() end

return M
