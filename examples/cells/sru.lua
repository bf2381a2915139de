-- The simple recurrent unit (Lei et al. 2017) as a linear cell: c = f c + (1 - f) x~ is linear
-- in c, so nn.RNN runs it through the scan engine with no recurrent product; the output
-- h = r tanh(c) + (1 - r) x' is an expression of the new c (output = {'h'}), computed in a pass
-- after the scan. Gates: the candidate x~, f, r and the highway's projection x'.
-- forward(xs, c0) returns hs, c_n.
return function(F)
  return { name = 'sru', gates = 4, state = { 'c' }, output = { 'h' }, linear = true,
           step = function(gx, s)
    local f, r = F.sigmoid(gx[2]), F.sigmoid(gx[3])
    local c = f * s.c + (1 - f) * gx[1]
    return { c = c, h = r * F.tanh(c) + (1 - r) * gx[4] }
  end }
end
