-- softmax and log_softmax along a dim (ops/softmax.lua): their backward ops, from the result.
local R = {}

R.softmax = {
  backward = function(node, g) return { g:softmax_backward(node.outs[1], node.args[2]) } end,
}
R.log_softmax = {
  backward = function(node, g) return { g:log_softmax_backward(node.outs[1], node.args[2]) } end,
}
return R
