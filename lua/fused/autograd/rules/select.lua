-- Selecting ops (ops/select.lua): where, masked_fill, index_select.
local common = require 'fused.autograd.rules.common'

local to_operand = common.to_operand
local R = {}

R.where = {
  backward = function(node, g)
    local fused = require 'fused'
    local cond, a, b = node.args[1], node.args[2], node.args[3]
    return { nil, to_operand(fused.where(cond, g, 0), a), to_operand(fused.where(cond, 0, g), b) }
  end,
}
R.masked_fill = {
  backward = function(node, g) return { g:masked_fill(node.args[2], 0) } end,
}
R.index_select = {
  cpu_only = 'index_add_',
  backward = function(node, g)
    local t, dim, index = node.args[1], node.args[2], node.args[3]
    return { common.zeros_like(t):index_add_(dim, index, g) }
  end,
}
R.gather = {
  cpu_only = 'index_put_',
  backward = function(node, g)
    local t, index = node.args[1], node.args[3]
    if type(index) == 'table' then index = (require 'fused').tensor(index, { dtype = 'int64', device = t.device }) end
    return { common.scatter_add(t, common.dim(node.args[2], t.ndim), index, g) }
  end,
}
R.nonzero = 'indices'
R.unique = 'values of a set'
return R
