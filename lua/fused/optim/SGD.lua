-- Stochastic gradient descent with momentum and L2 weight decay, as torch.optim.SGD:
-- g = grad + weight_decay * param; with momentum, buf = momentum * buf + (1 - dampening) * g
-- (buf = g at the first step) and param -= lr * buf, or with nesterov
-- param -= lr * (g + momentum * buf); else param -= lr * g. One fused C pass per parameter.
--
--   local opt = fused.optim.SGD(params, grads, {lr = 0.01, momentum = 0, dampening = 0,
--                                               weight_decay = 0, nesterov = false})
--   opt:step()
local functional = require 'fused.functional'
local Optimizer = require 'fused.optim.Optimizer'

local SGD = Optimizer:extend('SGD',
  { lr = 0.01, momentum = 0, dampening = 0, weight_decay = 0, nesterov = false }, function(k, v)
    if k == 'momentum' or k == 'dampening' then
      Optimizer.expect_in_range(v, 0, 1)
    elseif k == 'nesterov' then
      Optimizer.expect_boolean(v)
    else
      Optimizer.expect_non_negative(v)
    end
  end)

-- As PyTorch: Nesterov's look-ahead is defined for undamped momentum only.
function SGD:check_together()
  if self.nesterov and (self.momentum == 0 or self.dampening ~= 0) then
    return string.format('nesterov expected momentum > 0 and dampening 0, got momentum %g and '
                         .. 'dampening %g', self.momentum, self.dampening)
  end
end

function SGD:buffer_names() return self.momentum > 0 and { 'momentum_buffer' } or {} end

function SGD:update(i, param, grad)
  local buf = self.buffers.momentum_buffer and self.buffers.momentum_buffer[i]
  functional.sgd_step(param, grad, buf, self.lr, self.momentum, self.dampening, self.weight_decay,
                      self.nesterov, self.step_count == 1)
end

return SGD
