-- RMSprop as torch.optim.RMSprop (not centered): g = grad + weight_decay * param,
-- square_avg = alpha * square_avg + (1 - alpha) * g^2, avg = sqrt(square_avg) + eps (eps
-- outside the root); with momentum, buf = momentum * buf + g / avg and param -= lr * buf;
-- else param -= lr * g / avg. Buffers start at zero. One fused C pass per parameter.
--
--   local opt = fused.optim.RMSprop(params, grads, {lr = 0.01, alpha = 0.99, eps = 1e-8,
--                                                   momentum = 0, weight_decay = 0})
local functional = require 'fused.functional'
local Optimizer = require 'fused.optim.Optimizer'

local RMSprop = Optimizer:extend('RMSprop',
  { lr = 0.01, alpha = 0.99, eps = 1e-8, momentum = 0, weight_decay = 0 }, function(k, v)
    if k == 'alpha' or k == 'momentum' then
      Optimizer.expect_in_range(v, 0, 1)
    else
      Optimizer.expect_non_negative(v)
    end
  end)

function RMSprop:buffer_names()
  return self.momentum > 0 and { 'square_avg', 'momentum_buffer' } or { 'square_avg' }
end

function RMSprop:update(i, param, grad)
  local buf = self.buffers.momentum_buffer and self.buffers.momentum_buffer[i]
  functional.rmsprop_step(param, grad, self.buffers.square_avg[i], buf, self.lr, self.alpha,
                          self.eps, self.momentum, self.weight_decay)
end

return RMSprop
