-- minGRU (Feng et al. 2024, "Were RNNs All We Needed?"), as lucidrains/minGRU-pytorch runs it:
-- h = (1 - z) h + z g(hidden), z = sigmoid(gate), g the positive function of its log-space
-- form. Linear in h, so nn.RNN runs it through the scan engine (no recurrent weights); its
-- Linear has no bias: nn.RNN(I, H, {cell = ..., bias = false}). Gates: hidden, gate.
return function(F)
  local function g(x) return F.where(F.ge(x, 0), x + 0.5, F.sigmoid(x)) end
  return { name = 'mingru', gates = 2, state = { 'h' }, linear = true, step = function(gx, s)
    local z = F.sigmoid(gx[2])
    return { h = (1 - z) * s.h + z * g(gx[1]) }
  end }
end
