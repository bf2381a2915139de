-- Adam as torch.optim.Adam (weight decay as L2 added to the gradient; optim/AdamW.lua decouples it):
-- g = grad + weight_decay * param, m = beta1 * m + (1 - beta1) * g,
-- v = beta2 * v + (1 - beta2) * g^2, and at step t (from 1)
-- param -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps). One fused C pass per
-- parameter.
--
--   local opt = fused.optim.Adam(params, grads,
--                                {lr = 1e-3, betas = {0.9, 0.999}, eps = 1e-8, weight_decay = 0})
local functional = require 'fused.functional'
local Optimizer = require 'fused.optim.Optimizer'
local argcheck = require 'fused.check'

local Adam = Optimizer:extend('Adam',
  { lr = 1e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 0 }, function(k, v)
    if k == 'betas' then
      if type(v) ~= 'table' or argcheck.sequence_length(v) ~= 2 then
        error('expected two numbers {beta1, beta2}, got '
              .. (type(v) == 'table' and argcheck.show_list(v) or argcheck.type_name(v)), 0)
      end
      Optimizer.expect_in_range(v[1], 0, 1, true)
      Optimizer.expect_in_range(v[2], 0, 1, true)
    else
      Optimizer.expect_non_negative(v)
    end
  end)

function Adam:buffer_names() return { 'exp_avg', 'exp_avg_sq' } end

function Adam:update(i, param, grad)
  functional.adam_step(param, grad, self.buffers.exp_avg[i], self.buffers.exp_avg_sq[i], self.lr,
                       self.betas[1], self.betas[2], self.eps, self.weight_decay, false,
                       self.step_count)
end

return Adam
