-- The LLTM of PyTorch's C++-extension tutorial, fused's nn.LLTM: gates input, output and an ELU
-- candidate; c' = c + i elu(z_c), h' = tanh(c') o. F.define(dofile('examples/cells/lltm.lua')(F))
return function(F)
  return { name = 'lltm_cell', gates = 3, state = 'hc', step = function(gx, gh, h, c)
    local i, o = F.sigmoid(gx[1] + gh[1]), F.sigmoid(gx[2] + gh[2])
    local new_c = c + i * F.elu(gx[3] + gh[3])
    return F.tanh(new_c) * o, new_c
  end }
end
