-- minLSTM (Feng et al. 2024), as lucidrains/minGRU-pytorch runs it: f' = f / (f + i) and
-- i' = i / (f + i) of f = sigmoid(f_gate), i = sigmoid(i_gate); h = f' h + i' g(hidden), g the
-- positive function of the log-space form. Gates: hidden, f_gate, i_gate (no bias there:
-- nn.RNN(I, H, {cell = ..., bias = false})).
return function(F)
  local function g(x) return F.where(F.ge(x, 0), x + 0.5, F.sigmoid(x)) end
  return { name = 'minlstm', gates = 3, state = { 'h' }, linear = true, step = function(gx, s)
    local f, i = F.sigmoid(gx[2]), F.sigmoid(gx[3])
    return { h = f / (f + i) * s.h + i / (f + i) * g(gx[1]) }
  end }
end
