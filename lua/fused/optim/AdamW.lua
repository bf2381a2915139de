-- AdamW as torch.optim.AdamW: Adam with the weight decay decoupled from the gradient
-- (Loshchilov and Hutter): param *= 1 - lr * weight_decay, then Adam's update from the gradient
-- alone (optim/Adam.lua). One fused C pass per parameter.
--
--   local opt = fused.optim.AdamW(params, grads,
--                                 {lr = 1e-3, betas = {0.9, 0.999}, eps = 1e-8, weight_decay = 1e-2})
local functional = require 'fused.functional'
local Adam = require 'fused.optim.Adam'
local Optimizer = require 'fused.optim.Optimizer'

local AdamW = Optimizer:extend('AdamW',
  { lr = 1e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weight_decay = 1e-2 }, Adam.check)

AdamW.buffer_names = Adam.buffer_names

function AdamW:update(i, param, grad)
  functional.adam_step(param, grad, self.buffers.exp_avg[i], self.buffers.exp_avg_sq[i], self.lr,
                       self.betas[1], self.betas[2], self.eps, self.weight_decay, true,
                       self.step_count)
end

return AdamW
