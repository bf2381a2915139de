-- fused.sparse (sparse/init.lua guards each under 'fused.sparse.' .. its name): the product
-- with a dense X and its bias; a sparse matrix carries no gradient, so the functions that
-- make one from recorded tensors are refused.
local R = {}

-- y = act(S X + bias): d_X = S^T d, d_bias = the column sums of d, d = g where y > 0 (relu).
R['fused.sparse.mm'] = {
  options = { 'bias' },
  backward = function(node, g)
    local S, opts = node.args[1], node.args[3] or {}
    local d = g
    if opts.activation == 'relu' then d = g * node.outs[1]:gt(0):to(g.dtype) end
    local mm = require 'fused.sparse.mm'
    local d_bias = opts.bias ~= nil and { bias = d:sum(1):view(d:size(2)) } or nil
    return { nil, mm(S:t(), d), d_bias }
  end,
}

local MADE = { refused = 'a sparse matrix carries no gradient (its values are not on the tape)' }
for _, name in ipairs({ 'csr', 'from_coo', 'from_dense' }) do R['fused.sparse.' .. name] = MADE end
R['fused.sparse.normalize_adjacency'] = 'of a sparse matrix, which carries no gradient'
R['fused.sparse.is_sparse'] = 'a boolean'
return R
