-- Elementwise ops (ops/pointwise.lua): node.args are the op's (t[, alpha], opts) or (a, b,
-- opts), node.outs[1] its result. Either operand of a binary op may be a number (no gradient);
-- two tensors broadcast, and each gradient is summed back to its operand's shape.
local common = require 'fused.autograd.rules.common'

local to_operand, zeros_like, ops = common.to_operand, common.zeros_like, common.ops
local R = {}

-- A unary op whose gradient is g times its derivative at t, d(t, y, node, opts) (y its
-- result; opts: {out = the node's buffer} for a derivative op): scaled in place.
local function unary(d)
  return {
    backward = function(node, g)
      local t = node.args[1]
      return { d(t, node.outs[1], node, common.out(node, 'd', t:shape(), t)):mul_(g) }
    end,
  }
end

R.neg = { backward = function(_, g) return { -g } end }
R.exp = { backward = function(node, g) return { g * node.outs[1] } end }
R.log = { backward = function(node, g) return { g / node.args[1] } end }
R.sqrt = { backward = function(node, g) return { (g / node.outs[1]):mul_(0.5) } end }
-- The derivative ops of the op layer (d_tanh, ...: of the input).
R.tanh = unary(function(t, _, _, opts) return t:d_tanh(opts) end)
R.sigmoid = unary(function(t, _, _, opts) return t:d_sigmoid(opts) end)
R.relu = unary(function(t, _, _, opts) return t:d_relu(opts) end)
R.elu = unary(function(t, _, node, opts)
  local alpha = node.args[2]
  return t:d_elu(type(alpha) == 'number' and alpha or 1, opts)
end)
R.abs = unary(function(t, _, _, opts) return ops.sign(t, opts) end)
-- The derivative ops themselves (a second derivative): of exp, exp; of log, -1/t^2; of tanh,
-- -2 tanh (1 - tanh^2); of sigmoid, s (1 - s) (1 - 2 s); of relu, 0; of elu, alpha e^t below 0.
R.d_exp = unary(function(t) return ops.exp(t) end)
R.d_log = unary(function(t) return -((t * t) ^ -1) end)
R.d_tanh = unary(function(t, y) return (ops.tanh(t) * y):mul_(-2) end)
R.d_sigmoid = unary(function(t, y) return (ops.sigmoid(t) * -2):add_(1):mul_(y) end)
R.d_relu = unary(function(t) return common.zeros_like(t) end)
R.d_elu = unary(function(t, y) return t:le(0):to(t.dtype):mul_(y) end)
-- Piecewise constant: zero gradient, as PyTorch's.
for _, name in ipairs({ 'sign', 'floor', 'ceil', 'round', 'trunc' }) do
  R[name] = { backward = function(node) return { zeros_like(node.args[1]) } end }
end

local function binary(da, db)
  return {
    backward = function(node, g)
      local a, b = node.args[1], node.args[2]
      return { type(a) ~= 'number' and to_operand(da(g, a, b, node.outs[1], node), a) or nil,
               type(b) ~= 'number' and to_operand(db(g, a, b, node.outs[1], node), b) or nil }
    end,
  }
end

-- add and sub: a +- alpha b ({alpha =} last, as PyTorch's; 1 without it).
local function alpha_of(node)
  local opts = node.args[3]
  return type(opts) == 'table' and opts.alpha or 1
end
R.add = binary(function(g) return g end, function(g, _, _, _, node)
  local alpha = alpha_of(node)
  return alpha == 1 and g or g * alpha
end)
R.sub = binary(function(g) return g end, function(g, _, _, _, node) return g * -alpha_of(node) end)
-- Each product in the node's buffer (of g's shape, the broadcast one) before it is summed down.
R.mul = binary(function(g, _, b, _, node) return ops.mul(g, b, common.out(node, 'a', g:shape(), g)) end,
               function(g, a, _, _, node) return ops.mul(g, a, common.out(node, 'b', g:shape(), g)) end)
R.div = binary(function(g, _, b) return g / b end, function(g, _, b, y) return -(g * y / b) end)
-- a^b: b a^(b-1) and a^b log(a).
R.pow = binary(function(g, a, b) return g * b * ops.pow(a, b - 1) end,
               function(g, a, _, y) return g * y * (type(a) == 'number' and math.log(a) or ops.log(a)) end)

-- maximum and minimum: the gradient goes to the operand chosen, half to each on a tie (PyTorch's).
local function extremum(first)
  local function share(a, b)
    local fused = require 'fused'
    local cmp = first == 'max' and fused.gt(a, b) or fused.lt(a, b)
    local like = type(a) == 'number' and b or a
    return cmp:to(like.dtype) + fused.eq(a, b):to(like.dtype) * 0.5
  end
  return binary(function(g, a, b) return g * share(a, b) end,
                function(g, a, b) return g * share(b, a) end)
end
R.maximum = extremum('max')
R.minimum = extremum('min')

-- clamp(t, min, max): t's gradient where it lies within the bounds, a tensor bound's where t
-- is past it.
R.clamp = {
  backward = function(node, g)
    local fused = require 'fused'
    local t, lo, hi = node.args[1], node.args[2], node.args[3]
    local inside = fused.ones(t:shape(), { dtype = t.dtype, device = t.device })
    local d_lo, d_hi
    if lo ~= nil then
      local below = fused.lt(t, lo):to(t.dtype)
      inside = inside - below
      if type(lo) ~= 'number' then d_lo = to_operand(g * below, lo) end
    end
    if hi ~= nil then
      local above = fused.gt(t, hi):to(t.dtype)
      if lo ~= nil then above = above * fused.ge(t, lo):to(t.dtype) end -- min wins, as clamp
      inside = inside - above
      if type(hi) ~= 'number' then d_hi = to_operand(g * above, hi) end
    end
    return { g * inside, d_lo, d_hi }
  end,
}

-- Results that carry no gradient.
for _, name in ipairs({ 'eq', 'ne', 'lt', 'le', 'gt', 'ge' }) do R[name] = 'a comparison: its result is bool' end

return R
