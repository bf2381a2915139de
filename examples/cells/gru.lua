-- nn.GRU's cell as a definition: gates r, z, n; r scales the recurrent product of n, bias
-- included, as PyTorch's GRU does.
return function(F)
  return { name = 'gru_cell', gates = 3, state = 'h', step = function(gx, gh, h)
    local r, z = F.sigmoid(gx[1] + gh[1]), F.sigmoid(gx[2] + gh[2])
    local n = F.tanh(gx[3] + r * gh[3])
    return (1 - z) * n + z * h
  end }
end
