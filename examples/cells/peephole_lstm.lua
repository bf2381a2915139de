-- The peephole LSTM (Gers & Schmidhuber 2000) as TensorFlow's LSTMCell(use_peepholes = True)
-- computes it: the input and forget gates look at the old c, the output gate at the new one,
-- through per-unit weights w_ci, w_cf, w_co; TensorFlow's forget_bias of 1 is added to f.
-- Gates in PyTorch's order (i, f, g, o).
return function(F)
  return { name = 'peephole_lstm', gates = 4, state = { 'h', 'c' },
    params = { 'w_ci', 'w_cf', 'w_co' },
    step = function(gx, gh, s, p)
      local i = F.sigmoid(gx[1] + gh[1] + p.w_ci * s.c)
      local f = F.sigmoid(gx[2] + gh[2] + 1 + p.w_cf * s.c)
      local c = f * s.c + i * F.tanh(gx[3] + gh[3])
      local o = F.sigmoid(gx[4] + gh[4] + p.w_co * c)
      return { h = o * F.tanh(c), c = c }
    end }
end
