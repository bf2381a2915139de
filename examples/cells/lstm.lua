-- nn.LSTM's cell as a definition: gates i, f, g, o (PyTorch's order).
return function(F)
  return { name = 'lstm_cell', gates = 4, state = 'hc', step = function(gx, gh, h, c)
    local i, f = F.sigmoid(gx[1] + gh[1]), F.sigmoid(gx[2] + gh[2])
    local g, o = F.tanh(gx[3] + gh[3]), F.sigmoid(gx[4] + gh[4])
    local new_c = f * c + i * g
    return o * F.tanh(new_c), new_c
  end }
end
