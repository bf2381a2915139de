-- y = tanh(x) elementwise, on a tensor of any shape (nn/activation.lua).
--
--   local act = fused.nn.Tanh()
--   local y = act:forward(x)
--   local d_x = act:backward(d_y)
local ops = require 'fused.ops'

return require('fused.nn.activation')('Tanh', ops.tanh, ops.d_tanh)
