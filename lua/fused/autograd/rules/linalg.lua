-- The matmul family (ops/linalg.lua): out = beta bias + alpha a b.
local common = require 'fused.autograd.rules.common'

local R = {}

-- b as the matrix it multiplied (a vector b is a column).
local function matrix(b) return b.ndim == 1 and b:view(-1, 1) or b end

R.matmul = {
  backward = function(node, g)
    local a, b = node.args[1], node.args[2]
    return { g:matmul(matrix(b):t()), a:t():matmul(g):reshape(b:shape()) }
  end,
}
R.addmm = {
  backward = function(node, g)
    local bias, a, b, opts = node.args[1], node.args[2], node.args[3], node.args[4] or {}
    local beta, alpha = opts.beta or 1, opts.alpha or 1
    return { common.to_operand(g:mul(beta), bias), g:matmul(matrix(b):t()):mul(alpha),
             a:t():matmul(g):reshape(b:shape()):mul(alpha) }
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
