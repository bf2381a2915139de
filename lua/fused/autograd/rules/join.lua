-- cat and stack (ops/cat.lua): each input's gradient is its part of the result's.
local common = require 'fused.autograd.rules.common'

local R = {}

R.cat = {
  backward = function(node, g)
    local list = node.args[1]
    local dim = common.dim(node.args[2], g.ndim)
    local parts, start = {}, 1
    for i, t in ipairs(list) do
      if t.ndim == 1 and t:size(1) == 0 and g.ndim > 1 then -- an empty 1-D piece joined as nothing
        parts[i] = nil
      else
        parts[i] = g:narrow(dim, start, t:size(dim))
        start = start + t:size(dim)
      end
    end
    return { parts }
  end,
}
R.stack = {
  backward = function(node, g)
    local dim = common.dim(node.args[2], g.ndim)
    local parts = {}
    for i = 1, #node.args[1] do parts[i] = g:select(dim, i) end
    return { parts }
  end,
}
return R
