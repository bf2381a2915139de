-- JANET (van der Westhuizen and Lasenby 2018), the forget gate alone: s = gx1 + gh1,
-- h' = sigmoid(s) h + (1 - sigmoid(s - beta)) tanh(gx2 + gh2), with the paper's beta = 1.
-- F.define(dofile('examples/cells/janet.lua')(fused.cell))
return function(F)
  return { name = 'janet', gates = 2, state = 'h', step = function(gx, gh, h)
    local s = gx[1] + gh[1]
    return F.sigmoid(s) * h + (1 - F.sigmoid(s - 1)) * F.tanh(gx[2] + gh[2])
  end }
end
