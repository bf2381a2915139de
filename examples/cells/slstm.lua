-- xLSTM's sLSTM (Beck et al. 2024; NX-AI/xlstm's vanilla pointwise step): four states, the
-- exponential input and forget gates stabilised by m. On a sequence's first step (n = 0) the
-- stabiliser is the input gate's pre-activation, as xLSTM's step has it for zero states.
-- Gates i, f, z, o as xLSTM orders them.
return function(F)
  return { name = 'slstm', gates = 4, state = { 'h', 'c', 'n', 'm' },
    step = function(gx, gh, s)
      local i, f = gx[1] + gh[1], gx[2] + gh[2]
      local log_f_m = s.m + F.logsigmoid(f)
      local m = F.where(F.eq(s.n, 0), i, F.max(i, log_f_m))
      local ig, fg = F.exp(i - m), F.exp(log_f_m - m)
      local c = fg * s.c + ig * F.tanh(gx[3] + gh[3])
      local n = fg * s.n + ig
      return { h = F.sigmoid(gx[4] + gh[4]) * c / n, c = c, n = n, m = m }
    end }
end
