-- The matmul family (ops/linalg.lua): out = beta bias + alpha a b.
local common = require 'fused.autograd.rules.common'

local R = {}

-- b as the matrix it multiplied (a vector b is a column).
local function matrix(b) return b.ndim == 1 and b:view(-1, 1) or b end

-- a^T g, the gradient of b in a b, laid out as b is: for b = w:t() (Linear's weight), (g^T a)^T,
-- so that w's gradient comes back contiguous.
local function d_right(a, g, b)
  if b.ndim == 2 and not b:is_contiguous() and b:t():is_contiguous() then return g:t():matmul(a):t() end
  return a:t():matmul(g):reshape(b:shape())
end

R.matmul = {
  backward = function(node, g)
    local a, b = node.args[1], node.args[2]
    return { g:matmul(matrix(b):t()), d_right(a, g, b) }
  end,
}
R.addmm = {
  backward = function(node, g)
    local bias, a, b, opts = node.args[1], node.args[2], node.args[3], node.args[4] or {}
    local beta, alpha = opts.beta or 1, opts.alpha or 1
    local d_a, d_b = g:matmul(matrix(b):t()), d_right(a, g, b)
    if alpha ~= 1 then d_a, d_b = d_a:mul_(alpha), d_b:mul_(alpha) end
    return { common.to_operand(beta == 1 and g or g:mul(beta), bias), d_a, d_b }
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
