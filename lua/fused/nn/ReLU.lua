-- y = relu(x) elementwise, on a tensor of any shape (nn/activation.lua).
--
--   local act = fused.nn.ReLU()
--   local y = act:forward(x)
--   local d_x = act:backward(d_y)
local ops = require 'fused.ops'

return require('fused.nn.activation')('ReLU', ops.relu, ops.d_relu)
