-- Reductions (ops/reduce.lua, ops/scan.lua, ops/softmax.lua's logsumexp). sum and mean along a
-- dim keep it (size 1); of a whole recorded tensor they give a 0-dim tensor rather than a
-- number (PyTorch's), so that the result stays on the tape.
local common = require 'fused.autograd.rules.common'

local R = {}
local ops = common.ops

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
    return { spread(g, t) / count }
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
-- cumprod's: the sum from each element on of g y / t; where t has zeros, element by element
-- (y_k / t_i is the product of t_j, j <= k, but t_i: cumprod of t with t_i set to 1).
R.cumprod = {
  backward = function(node, g)
    local t, dim = node.args[1], common.dim(node.args[2], node.args[1].ndim)
    if t:eq(0):sum() == 0 then return { (g * node.outs[1]):d_cumsum(dim) / t } end
    local d, n = common.zeros_like(t), t:size(dim)
    for i = 1, n do
      local others = t:clone()
      others:narrow(dim, i, 1):fill_(1)
      local from_i = (g * others:cumprod(dim)):narrow(dim, i, n - i + 1)
      d:narrow(dim, i, 1):copy_(from_i:sum(dim))
    end
    return { d }
  end,
}
R.d_cumsum = { backward = function(node, g) return { g:cumsum(node.args[2]) } end }
-- sum_to_size(grad, shape): g spread back over grad's shape (leading dims of size 1 added).
R.sum_to_size = {
  backward = function(node, g)
    local t, shape = node.args[1], g:shape()
    for _ = g.ndim + 1, t.ndim do table.insert(shape, 1, 1) end
    return { g:reshape(shape):expand(t:shape()):contiguous() }
  end,
}

-- The deviations from the mean along dim (of all, dim nil) and the count of elements reduced.
local function deviations(t, dim)
  if dim == nil then return t - t:reshape(-1):mean(1):view({}), t:numel() end
  return t - t:mean(dim), t:size(dim)
end

-- var and std: unbiased (n - 1).
R.var = {
  forward = whole,
  backward = function(node, g)
    local t = node.args[1]
    local d, n = deviations(t, node.args[2])
    return { spread(g, t) * d * (2 / (n - 1)) }
  end,
}
R.std = {
  forward = whole,
  backward = function(node, g)
    local t = node.args[1]
    local d, n = deviations(t, node.args[2])
    return { spread(g, t) * d / spread(node.outs[1], t) / (n - 1) }
  end,
}
-- norm(t, p, dim): sign(t) |t|^(p-1) / norm^(p-1); the max norm (p = inf): sign(t) shared
-- among the elements whose |t| is the norm, as PyTorch's.
R.norm = {
  forward = function(f, t, p, dim, ...)
    if dim ~= nil then return f(t, p, dim, ...) end
    return f(t:reshape(-1), p, 1):view({})
  end,
  backward = function(node, g)
    local t, p = node.args[1], node.args[2] or 2
    local y = spread(node.outs[1], t)
    if p == math.huge then
      local at = ops.abs(t):eq(y):to(t.dtype)
      local share = at / (node.args[3] == nil and at:sum() or at:sum(node.args[3]))
      return { spread(g, t) * ops.sign(t) * share }
    end
    if p == 2 then return { spread(g, t) * t / y } end
    return { spread(g, t) * ops.sign(t) * ops.abs(t) ^ (p - 1) / y ^ (p - 1) }
  end,
}
-- prod(t, dim): the product of the others along dim; where t has zeros (without dividing by
-- them), that of the non-zero others at a slice's one zero, 0 elsewhere in a slice with any.
R.prod = {
  forward = whole,
  backward = function(node, g)
    local fused = require 'fused'
    local t, dim = node.args[1], node.args[2]
    if dim == nil then t, dim = t:reshape(-1), 1 end
    local zero = t:eq(0)
    local zeros = zero:to(t.dtype):sum(dim)
    local nonzero = fused.where(zero, 1, t)
    local rest = nonzero:prod(dim)
    local others = fused.where(zero, fused.where(zeros:eq(1), rest, 0), fused.where(zeros:eq(0), rest, 0) / nonzero)
    return { (spread(g, t) * others):view(node.args[1]:shape()) }
  end,
}
-- sum_squares(t): a number unrecorded, a 0-dim tensor recorded.
R.sum_squares = {
  forward = function(_, t) return (t * t):reshape(-1):sum(1):view({}) end,
  backward = function(node, g) return { spread(g, node.args[1]) * node.args[1] * 2 } end,
}
-- max and min along dim: the gradient goes to the element its index names; of all of t (a
-- 0-dim tensor recorded), shared among the elements equal to it, as PyTorch's.
local function extremum()
  return {
    multi = true,
    forward = function(f, t, dim, ...)
      if dim ~= nil then return f(t, dim, ...) end
      return (f(t:reshape(-1), 1)):view({})
    end,
    backward = function(node, g)
      local t, dim = node.args[1], node.args[2]
      if dim == nil then
        local at = t:eq(spread(node.outs[1], t)):to(t.dtype)
        return { at * spread(g[1], t) / at:sum() }
      end
      local fused = require 'fused'
      local shape = {}
      for d = 1, t.ndim do shape[d] = 1 end
      shape[dim] = t:size(dim)
      local positions = fused.arange(1, t:size(dim) + 1, { device = t.device }):view(shape)
      local at = positions:eq(spread(node.outs[2], t)):to(t.dtype)
      return { at * spread(g[1], t) }
    end,
  }
end
R.max = extremum()
R.min = extremum()

-- sort and topk: the values' gradient goes back to the places their indices name.
local function sorted(default_dim_arg)
  return {
    multi = true,
    cpu_only = 'index_put_',
    backward = function(node, g)
      local t = node.args[1]
      local dim = common.dim(node.args[default_dim_arg] or -1, t.ndim)
      return { common.scatter_add(t, dim, node.outs[2], g[1]) }
    end,
  }
end
R.sort = sorted(2)
R.topk = sorted(3)

R.argmax = 'indices'
R.argmin = 'indices'
return R
