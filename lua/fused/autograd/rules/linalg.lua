-- The matmul family (ops/linalg.lua): out = beta bias + alpha a b.
local common = require 'fused.autograd.rules.common'

local R = {}

-- b as the matrix it multiplied (a vector b is a column).
local function matrix(b) return b.ndim == 1 and b:view(-1, 1) or b end

-- alpha a b added in place into `into` (a parameter's gradient or its transpose, the tape's
-- sink): false, the tape's "added", or nil where into is none or not a matrix addmm_ writes.
local function add_product(into, a, b, alpha)
  if into == nil or into.ndim ~= 2 then return nil end
  local opts = alpha ~= 1 and { alpha = alpha } or nil
  if into:is_contiguous() then into:addmm_(a, b, opts) return false end
  if into:t():is_contiguous() then into:t():addmm_(b:t(), a:t(), opts) return false end
  return nil
end

-- alpha a^T g, the gradient of b in a b, laid out as b is: for b = w:t() (Linear's weight),
-- (g^T a)^T, so that w's gradient comes back contiguous; added into into where it can be.
local function d_right(node, a, g, b, alpha, into)
  local added = add_product(into, a:t(), g, alpha)
  if added ~= nil then return added end
  local d
  if b.ndim == 2 and not b:is_contiguous() and b:t():is_contiguous() then
    d = g:t():matmul(a, common.out(node, 'right', { b:size(2), b:size(1) }, g)):t()
  else
    d = a:t():matmul(g, common.out(node, 'right', { a:size(2), g:size(2) }, g)):reshape(b:shape())
  end
  return alpha == 1 and d or d:mul_(alpha)
end

-- alpha g b^T, the gradient of a in a b (in the node's buffer, or added into into).
local function d_left(node, a, g, b, alpha, into)
  local added = add_product(into, g, matrix(b):t(), alpha)
  if added ~= nil then return added end
  local d = g:matmul(matrix(b):t(), common.out(node, 'left', a:shape(), g))
  return alpha == 1 and d or d:mul_(alpha)
end

R.matmul = {
  into = true,
  backward = function(node, g, into)
    local a, b = node.args[1], node.args[2]
    into = into or {}
    return { d_left(node, a, g, b, 1, into[1]), d_right(node, a, g, b, 1, into[2]) }
  end,
}
-- beta g summed down to bias's shape; for a bias vector (Linear's), g's column sums in the
-- node's buffer, added into into where there is one.
local function d_bias(node, bias, g, beta, into)
  if bias.ndim ~= 1 or g.ndim ~= 2 then return common.to_operand(beta == 1 and g or g * beta, bias) end
  local sums = g:sum(1, common.out(node, 'bias', { 1, g:size(2) }, g)):view(g:size(2))
  if beta ~= 1 then sums:mul_(beta) end
  if into == nil then return sums end
  into:add_(sums)
  return false
end

R.addmm = {
  into = true,
  backward = function(node, g, into)
    local bias, a, b, opts = node.args[1], node.args[2], node.args[3], node.args[4] or {}
    local beta, alpha = opts.beta or 1, opts.alpha or 1
    into = into or {}
    return { d_bias(node, bias, g, beta, into[1]), d_left(node, a, g, b, alpha, into[2]),
             d_right(node, a, g, b, alpha, into[3]) }
  end,
}
R.mv = {
  backward = function(node, g)
    local a, v = node.args[1], node.args[2]
    return { g:outer(v), a:t():mv(g) }
  end,
}
R.outer = {
  backward = function(node, g)
    local a, b = node.args[1], node.args[2]
    return { g:mv(b), g:t():mv(a) }
  end,
}
R.bmm = {
  backward = function(node, g)
    local a, b = node.args[1], node.args[2]
    return { g:bmm(b:transpose(2, 3)), a:transpose(2, 3):bmm(g) }
  end,
}
return R
