-- The coupled input-forget gate LSTM (Greff et al. 2017, "CIFG"): the input gate is 1 - f.
-- Gates f, g, o. F.define(dofile('examples/cells/cifg_lstm.lua')(fused.cell))
return function(F)
  return { name = 'cifg_lstm', gates = 3, state = 'hc', step = function(gx, gh, h, c)
    local f = F.sigmoid(gx[1] + gh[1])
    local new_c = f * c + (1 - f) * F.tanh(gx[2] + gh[2])
    return F.sigmoid(gx[3] + gh[3]) * F.tanh(new_c), new_c
  end }
end
