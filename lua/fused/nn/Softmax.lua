-- nn.Softmax(dim): exp(x) / sum(exp(x)) along dim, stable (fused.softmax), as torch.nn.Softmax.
local ops = require 'fused.ops'
return require('fused.nn.softmax_layer')('Softmax', ops.softmax, ops.softmax_backward)
