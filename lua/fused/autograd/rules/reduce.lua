-- Reductions (ops/reduce.lua, ops/scan.lua, ops/softmax.lua's logsumexp). sum and mean along a
-- dim keep it (size 1); of a whole recorded tensor they give a 0-dim tensor rather than a
-- number (PyTorch's), so that the result stays on the tape.
local common = require 'fused.autograd.rules.common'

local R = {}

-- The whole reduction as a 0-dim tensor: f along the one dim of t flattened.
local function whole(f, t, dim, ...)
  if dim ~= nil then return f(t, dim, ...) end
  return f(t:reshape(-1), 1):view({})
end

-- g (the reduced shape, or 0-dim) spread over t's shape.
local function spread(g, t)
  if g.ndim == 0 then
    local ones = {}
    for d = 1, t.ndim do ones[d] = 1 end
    g = g:reshape(t.ndim > 0 and ones or {})
  end
  return g:expand(t:shape())
end

R.sum = { forward = whole, backward = function(node, g) return { spread(g, node.args[1]):contiguous() } end }
R.mean = {
  forward = whole,
  backward = function(node, g)
    local t, dim = node.args[1], node.args[2]
    local count = dim == nil and t:numel() or t:size(dim)
    return { spread(g, t):div(count) }
  end,
}
R.logsumexp = {
  backward = function(node, g)
    local t, dim, keepdim = node.args[1], node.args[2], node.args[3]
    return { (require 'fused').logsumexp_backward(g, t, node.outs[1], dim, keepdim) }
  end,
}
-- cumsum's gradient: the sum from each element to the end (d_cumsum).
R.cumsum = { backward = function(node, g) return { g:d_cumsum(node.args[2]) } end }

R.argmax = 'indices'
R.argmin = 'indices'
return R
