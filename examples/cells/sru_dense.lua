-- The simple recurrent unit (Lei et al. 2017) on the dense engine: its recurrence is
-- element-wise, so the step reads no gh. (The engine still computes W_hh h each step, unused:
-- weight_hh's gradient is 0; examples/cells/sru.lua is the same unit as a linear cell, with no
-- recurrent product. This form stays as the dense engine's case of a step that reads no gh.)
-- Gates: the candidate, f, r and the highway's projection of x. c is the recurrent state.
return function(F)
  return { name = 'sru_dense', gates = 4, state = 'hc', step = function(gx, gh, h, c)
    local f, r = F.sigmoid(gx[2]), F.sigmoid(gx[3])
    local new_c = f * c + (1 - f) * gx[1]
    return r * F.tanh(new_c) + (1 - r) * gx[4], new_c
  end }
end
