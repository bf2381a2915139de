-- Griffin's RG-LRU (De et al. 2024), as google-deepmind/recurrentgemma's PyTorch RGLRU: the
-- input gate and the a gate from x, a = exp(-8 a_gate softplus(a_param)), the input scaled by
-- sqrt(1 - a^2) except at a segment's start, where the state restarts from 0 (reset: forward's
-- {resets = ...}). x is the layer's input at the unit: input size = hidden size. As
-- recurrentgemma's SqrtBoundDerivative, the derivative of that sqrt is clipped at 1000 (where
-- 1 - a^2 < 2.5e-7, a gate deep in saturation): the stop_gradient terms are 0 in value and
-- give the derivative 1 / sqrt(max(4 u, 1e-6)). recurrentgemma resets wherever segment_pos is
-- 0, every sequence's first step included: to match it on a fresh sequence, set resets[1] (the
-- first step of every row) too; without it step 1 continues from h0, as a second chunk should.
return function(F)
  local function sqrt_bound_derivative(u)
    return F.stop_gradient(F.sqrt(u))
           + (u - F.stop_gradient(u)) * F.stop_gradient(1 / F.sqrt(F.max(4 * u, 1e-6)))
  end
  return { name = 'rglru', gates = 2, state = { 'h' }, params = { 'a_param' }, linear = true,
           step = function(gx, s, p, x, reset)
    local log_a = -8 * F.sigmoid(gx[2]) * F.softplus(p.a_param)
    local scale = reset + (1 - reset) * sqrt_bound_derivative(1 - F.exp(2 * log_a))
    return { h = F.exp(log_a) * (1 - reset) * s.h + x * F.sigmoid(gx[1]) * scale }
  end }
end
