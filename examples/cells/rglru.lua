-- Griffin's RG-LRU (De et al. 2024), as google-deepmind/recurrentgemma's PyTorch RGLRU: the
-- input gate and the a gate from x, a = exp(-8 a_gate softplus(a_param)), the input scaled by
-- sqrt(1 - a^2) except at a segment's start, where the state restarts from 0 (reset: forward's
-- {resets = ...}). x is the layer's input at the unit: input size = hidden size. (recurrentgemma
-- clips the derivative of that sqrt at 1000, where 1 - a^2 < 2.5e-7; this cell does not.)
return function(F)
  return { name = 'rglru', gates = 2, state = { 'h' }, params = { 'a_param' }, linear = true,
           step = function(gx, s, p, x, reset)
    local log_a = -8 * F.sigmoid(gx[2]) * F.softplus(p.a_param)
    local scale = reset + (1 - reset) * F.sqrt(1 - F.exp(2 * log_a))
    return { h = F.exp(log_a) * (1 - reset) * s.h + x * F.sigmoid(gx[1]) * scale }
  end }
end
