-- The LRU (Orvieto et al. 2023): a complex diagonal state h = lambda h + gamma (B x), lambda =
-- exp(-exp(nu_log) + i exp(theta_log)), gamma = exp(gamma_log), held as two real states (re,
-- im) coupled by lambda; gates: the real and imaginary parts of B x. The layer outputs both
-- (re, im side by side); y = Re(C h) + D x is a Linear after it.
return function(F)
  return { name = 'lru', gates = 2, state = { 're', 'im' }, output = { 're', 'im' },
           params = { 'nu_log', 'theta_log', 'gamma_log' }, linear = true,
           step = function(gx, s, p)
    local mod, angle = F.exp(-F.exp(p.nu_log)), F.exp(p.theta_log)
    local lr, li, gamma = mod * F.cos(angle), mod * F.sin(angle), F.exp(p.gamma_log)
    return { re = lr * s.re - li * s.im + gamma * gx[1],
             im = li * s.re + lr * s.im + gamma * gx[2] }
  end }
end
