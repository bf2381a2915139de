-- fused.functional (functional/init.lua guards each under 'fused.functional.' .. its name):
-- embedding, the losses and the cell engine's forwards go back through their own backward
-- functions; those backwards, and the optimizers' updates, are refused on a recorded tensor.
-- The rules call the kinds' own functions, not the guarded ones (required when a backward
-- runs: they require the op layer, which loads the tape).
local common = require 'fused.autograd.rules.common'

local function kind(name) return require('fused.functional.' .. name) end

local R = {}
local P = 'fused.functional.'

R[P .. 'embedding'] = {
  backward = function(node, g)
    local indices, weight = node.args[1], node.args[2]
    return { nil, kind('embedding').embedding_backward_accumulate(g, indices, common.zeros_like(weight)) }
  end,
}

-- The forward's options with grad_output: g as a number for a reduced loss, else N values.
local function with_grad(opts, g)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.grad_output = (o.reduction or 'mean') == 'none' and g or g:item()
  return o
end
R[P .. 'cross_entropy'] = {
  backward = function(node, g)
    local logits, targets = node.args[1], node.args[2]
    return { kind('cross_entropy').cross_entropy_backward(logits, targets, with_grad(node.args[3], g)) }
  end,
}
R[P .. 'nll_loss'] = {
  backward = function(node, g)
    local log_probs, targets = node.args[1], node.args[2]
    return { kind('nll_loss').nll_loss_backward(log_probs, targets, with_grad(node.args[3], g)):view(log_probs:shape()) }
  end,
}

-- The engine's forwards: g, one per tensor result (zeros where none came); ctx, the result
-- after them, goes to the engine's backward, whose gradients come in forward's argument order.
R[P .. 'lltm_forward'] = {
  multi = true,
  backward = function(node, g)
    return { kind('lltm').lltm_backward(node.results[3], g[1], g[2]) }
  end,
}
R[P .. 'lltm_seq_forward'] = {
  multi = true,
  backward = function(node, g)
    local d_xs, d_W, d_b, d_h0, d_c0 = kind('lltm').lltm_seq_backward(node.results[3], g[1], nil, g[2])
    return { d_xs, d_W, d_b, d_h0, d_c0 }
  end,
}
R[P .. 'rnn_forward'] = {
  multi = true,
  backward = function(node, g) -- args: cell, xs, w_ih, w_hh, b_ih, b_hh, h0, c0
    local d_xs, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_h0, d_c0 = kind('rnn').rnn_backward(node.results[4], g[1], g[2], g[3])
    return { nil, d_xs, d_w_ih, d_w_hh, d_b_ih, d_b_hh, d_h0, d_c0 }
  end,
}

for _, name in ipairs({ 'embedding_backward_accumulate', 'cross_entropy_backward', 'nll_loss_backward',
                        'lltm_backward', 'lltm_backward_accumulate', 'lltm_seq_backward',
                        'lltm_seq_backward_accumulate', 'rnn_backward', 'rnn_backward_accumulate' }) do
  R[P .. name] = common.BACKWARD
end
local UPDATE = { refused = "an optimizer's update, in place: it is no part of a forward to derive; call it "
                 .. 'after backward' }
for _, name in ipairs({ 'sgd_step', 'adam_step', 'rmsprop_step' }) do R[P .. name] = UPDATE end
return R
