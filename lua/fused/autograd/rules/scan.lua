-- The linear scans (ops/linear_scan.lua): their gradients are their explicit backwards, run on
-- the forward's output h and its options.
local R = {}

-- The gradients of (coefficients, b, h0) from the backward op named backward.
local function by(backward)
  return function(node, g)
    local coefficients, b, h0, opts = node.args[1], node.args[2], node.args[3], node.args[4]
    local d_coefficients, d_b, d_h0 = require('fused')[backward](g, coefficients, node.outs[1],
                                                                 h0, opts)
    return { d_coefficients, d_b, d_h0 }
  end
end

R.scan = { backward = by('scan_backward') }
R.linear_scan = { backward = by('linear_scan_backward') }
return R
