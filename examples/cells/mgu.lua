-- The minimal gated unit (Zhou et al. 2016): a forget gate f and a candidate n,
-- h' = (1 - f) h + f n, f scaling the candidate's recurrent product as the GRU's r does
-- (examples/custom_cell/mgu.c by hand). F.define(dofile('examples/cells/mgu.lua')(fused.cell))
return function(F)
  return { name = 'mgu_cell', gates = 2, state = 'h', step = function(gx, gh, h)
    local f = F.sigmoid(gx[1] + gh[1])
    local n = F.tanh(gx[2] + f * gh[2])
    return (1 - f) * h + f * n
  end }
end
