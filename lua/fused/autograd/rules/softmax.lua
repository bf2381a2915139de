-- softmax and log_softmax along a dim (ops/softmax.lua): their backward ops, from the result;
-- and those backward ops themselves (a second derivative), of their gradient and result.
local R = {}

R.softmax = {
  backward = function(node, g) return { g:softmax_backward(node.outs[1], node.args[2]) } end,
}
R.log_softmax = {
  backward = function(node, g) return { g:log_softmax_backward(node.outs[1], node.args[2]) } end,
}

-- softmax_backward(d, y, dim) = y (d - sum(d y)): of d, the same of u; of y, u (d - sum(d y))
-- - d sum(u y).
R.softmax_backward = {
  backward = function(node, u)
    local d, y, dim = node.args[1], node.args[2], node.args[3]
    local d_y = u * (d - (d * y):sum(dim)) - d * (u * y):sum(dim)
    return { u:softmax_backward(y, dim), d_y }
  end,
}
-- log_softmax_backward(d, y, dim) = d - exp(y) sum(d): of d, u - sum(u exp(y)); of y,
-- -u exp(y) sum(d).
R.log_softmax_backward = {
  backward = function(node, u)
    local d, y, dim = node.args[1], node.args[2], node.args[3]
    local e = (require 'fused.autograd.rules.common').ops.exp(y)
    return { u - (u * e):sum(dim), -(u * e * d:sum(dim)) }
  end,
}
-- logsumexp_backward(d, t, y, dim, keepdim) = d exp(t - y) (d and y with dim kept): of t,
-- u times it; of d, sum(u exp(t - y)); of y, -sum(u times it), each in its argument's shape.
R.logsumexp_backward = {
  backward = function(node, u)
    local d, t, y, dim = node.args[1], node.args[2], node.args[3], node.args[4]
    local kept = t:shape()
    kept[(require 'fused.autograd.rules.common').dim(dim, t.ndim)] = 1
    local e = (require 'fused.autograd.rules.common').ops.exp(t - y:contiguous():view(kept))
    local d_t = u * node.outs[1]
    return { (u * e):sum(dim):view(d:shape()), d_t, (-d_t:sum(dim)):view(y:shape()) }
  end,
}
return R
