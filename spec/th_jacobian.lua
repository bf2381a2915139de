-- For the th specs: a Torch7 module's analytic gradients (updateGradInput, and
-- accGradParameters through backward) against central differences in float64, as torch/nn's
-- Jacobian tests. Inputs are tensors or tables of them; every float64 leaf is checked.
local fused = require 'fused'

local M = {}

local function leaves(x, list)
  list = list or {}
  if fused.is_tensor(x) then
    list[#list + 1] = x
  elseif type(x) == 'table' then
    for i = 1, #x do leaves(x[i], list) end
  end
  return list
end
M.leaves = leaves

-- Random tensors shaped as x (a tensor or a table of them).
local function like(x)
  if fused.is_tensor(x) then return fused.randn(x:shape(), { dtype = 'float64' }) end
  local out = {}
  for i = 1, #x do out[i] = like(x[i]) end
  return out
end
M.like = like

local function dot(a, b)
  local s, la, lb = 0, leaves(a), leaves(b)
  assert(#la == #lb, 'output and weights differ in count')
  for i = 1, #la do s = s + fused.sum(fused.mul(la[i], lb[i])) end
  return s
end

-- The largest |numeric - analytic| over t's elements, loss() evaluated around each.
local function worst(t, analytic, loss, eps)
  local v, a, err = t:view(-1), analytic:contiguous():view(-1), 0
  for k = 1, v:size(1) do
    local orig = v[k]
    v[k] = orig + eps
    local lp = loss()
    v[k] = orig - eps
    local lm = loss()
    v[k] = orig
    err = math.max(err, math.abs((lp - lm) / (2 * eps) - a[k]))
  end
  return err
end

-- The worst errors of the input's gradient and of the parameters' gradients of module m at
-- input (the loss: the output's dot product with fixed random weights).
function M.errors(m, input, eps)
  eps = eps or 1e-6
  local r = like(m:forward(input))
  local function loss() return dot(m:forward(input), r) end
  m:zeroGradParameters()
  m:forward(input)
  local grads_in = {}
  for i, g in ipairs(leaves(m:backward(input, r))) do grads_in[i] = g:clone() end
  local _, grads = m:parameters()
  local grads_p = {}
  for i, g in ipairs(grads or {}) do grads_p[i] = g:clone() end
  local input_error, param_error = 0, 0
  for i, t in ipairs(leaves(input)) do
    if t.dtype == 'float64' then input_error = math.max(input_error, worst(t, grads_in[i], loss, eps)) end
  end
  local params = m:parameters()
  for i, p in ipairs(params or {}) do param_error = math.max(param_error, worst(p, grads_p[i], loss, eps)) end
  return input_error, param_error
end

return M
