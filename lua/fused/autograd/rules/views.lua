-- Views and copies of one tensor (fused/shape.lua, t[...] of fused/indexing.lua, clone,
-- contiguous, conversions): the gradient goes back through the inverse view, or into zeros of
-- the input's shape at the place the view took.
local common = require 'fused.autograd.rules.common'

local zeros_like = common.zeros_like
local R = {}

local function reshaped(node, g) return { g:contiguous():view(node.args[1]:shape()) } end
for _, name in ipairs({ 'view', 'reshape', 'flatten', 'squeeze', 'unsqueeze' }) do
  R[name] = { backward = reshaped }
end

local function same(_, g) return { g } end
R.clone = { backward = same }
R.contiguous = { backward = same }

-- Conversions: the gradient in the input's dtype and on its device.
local function converted(node, g)
  local t = node.args[1]
  return { g:to(t.dtype, t.device) }
end
for _, name in ipairs({ 'to', 'double', 'float', 'half', 'bfloat16', 'cuda', 'cpu' }) do
  R[name] = { backward = converted }
end
R.long = 'an int64 result'
R.bool = 'a bool result'

-- sink: the same view of the input's gradient, which the tape's rules may add into in place.
R.transpose = {
  backward = function(node, g) return { g:transpose(node.args[2], node.args[3]) } end,
  sink = function(into, node) return into:transpose(node.args[2], node.args[3]) end,
}
R.t = { backward = function(_, g) return { g:t() } end, sink = function(into) return into:t() end }
R.permute = {
  backward = function(node, g)
    local order = type(node.args[2]) == 'table' and node.args[2] or { unpack(node.args, 2, node.n) }
    local inverse = {}
    for i, d in ipairs(order) do inverse[common.dim(d, #order)] = i end
    return { g:permute(inverse) }
  end,
}
R.expand = { backward = function(node, g) return { common.to_operand(g, node.args[1]) } end }

-- A view that took part of t: g written into zeros at that part (the same view of them).
local function placed(take)
  return {
    backward = function(node, g)
      local z = zeros_like(node.args[1])
      take(z, node):copy_(g)
      return { z }
    end,
  }
end
R.narrow = placed(function(z, node) return z:narrow(node.args[2], node.args[3], node.args[4]) end)
R.select = placed(function(z, node) return z:select(node.args[2], node.args[3]) end)
-- t[k]: a view for a number or a table of ranges, a copy for a mask (masked_select's rule).
R.index = {
  backward = function(node, g)
    local z, k = zeros_like(node.args[1]), node.args[2]
    z[k] = g
    return { z }
  end,
}
R.masked_select = {
  backward = function(node, g)
    local z = zeros_like(node.args[1])
    z[node.args[2]] = g
    return { z }
  end,
}

-- Pieces along a dim: the gradient is the pieces' gradients joined (zeros for a piece unused).
local function joined(node, g)
  local t = node.args[1]
  local dim = node.args[3]
  return { (require 'fused').cat(g, common.dim(dim, t.ndim), common.out(node, 'cat', t:shape(), t)) }
end
R.split = { multi = true, backward = joined }
R.chunk = { multi = true, backward = joined }

-- repeat (repeatTensor): each dim d of size s tiled r times is viewed as (r, s) and summed over r.
local function tiled(node, g)
  local t = node.args[1]
  local sizes = type(node.args[2]) == 'table' and node.args[2] or { unpack(node.args, 2, node.n) }
  local n, shape = #sizes, t:shape()
  for _ = t.ndim + 1, n do table.insert(shape, 1, 1) end
  local r = g
  for d = 1, n do
    if sizes[d] > 1 then
      local split = r:shape()
      split[d] = shape[d]
      table.insert(split, d, sizes[d])
      r = r:contiguous():view(split):sum(d):squeeze(d)
    end
  end
  return { r:contiguous():view(t:shape()) }
end
R['repeat'] = { backward = tiled }
R.repeatTensor = { backward = tiled }

R.item = 'a number'
return R
