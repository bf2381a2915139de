-- A highway GRU: PyTorch's GRU step, then a carry gate t (a fourth gate) that mixes it with x,
-- the layer's input at the unit, h' = t * gru(x, h) + (1 - t) * x, as highway networks
-- (Srivastava et al. 2015) and the SRU carry their input. A step reads x only where the input
-- size equals hidden_size (nn.RNN says so at construction).
return function(F)
  return { name = 'highway_gru', gates = 4, state = { 'h' },
    step = function(gx, gh, s, p, x)
      local r, z = F.sigmoid(gx[1] + gh[1]), F.sigmoid(gx[2] + gh[2])
      local n = F.tanh(gx[3] + r * gh[3])
      local t = F.sigmoid(gx[4] + gh[4])
      return { h = t * ((1 - z) * n + z * s.h) + (1 - t) * x }
    end }
end
