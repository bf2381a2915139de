-- Stochastic gradient descent with momentum and L2 weight decay, as torch.optim.SGD
-- (dampening 0, no Nesterov): g = grad + weight_decay * param; with momentum,
-- buf = momentum * buf + g (buf = g at the first step) and param -= lr * buf; else
-- param -= lr * g. One fused C pass per parameter.
--
--   local opt = fused.optim.SGD(params, grads, {lr = 0.01, momentum = 0, weight_decay = 0})
--   opt:step()
local functional = require 'fused.functional'
local Optimizer = require 'fused.optim.Optimizer'

local SGD = Optimizer:extend('SGD', { lr = 0.01, momentum = 0, weight_decay = 0 }, function(k, v)
  if k == 'momentum' then
    Optimizer.expect_in_range(v, 0, 1)
  else
    Optimizer.expect_non_negative(v)
  end
end)

function SGD:buffer_names() return self.momentum > 0 and { 'momentum_buffer' } or {} end

function SGD:update(i, param, grad)
  local buf = self.buffers.momentum_buffer and self.buffers.momentum_buffer[i]
  functional.sgd_step(param, grad, buf, self.lr, self.momentum, self.weight_decay,
                      self.step_count == 1)
end

return SGD
