-- nn.LogSoftmax(dim): x - logsumexp(x) along dim, stable (fused.log_softmax), as
-- torch.nn.LogSoftmax; the input NLLLoss expects.
local ops = require 'fused.ops'
return require('fused.nn.softmax_layer')('LogSoftmax', ops.log_softmax, ops.log_softmax_backward)
