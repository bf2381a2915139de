-- The optimizer updates as functions, one fused C pass over a parameter that writes param and
-- its state buffers in place, with PyTorch's formulas (optim/SGD.lua, RMSprop.lua, Adam.lua say
-- them). A nil momentum_buffer means momentum 0.
--
--   fused.functional.sgd_step(param, grad, momentum_buffer, lr, momentum, weight_decay, first_step)
--   fused.functional.rmsprop_step(param, grad, square_avg, momentum_buffer, lr, alpha, eps,
--                                 momentum, weight_decay)
--   fused.functional.adam_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps,
--                              weight_decay, step)
local lib = require 'fused.lib'

local C, check = lib.C, lib.check
local M = {}

function M.sgd_step(param, grad, momentum_buffer, lr, momentum, weight_decay, first_step)
  check(C.fused_sgd_step(param, momentum_buffer, grad, lr, momentum, weight_decay,
                         first_step and 1 or 0))
end

function M.rmsprop_step(param, grad, square_avg, momentum_buffer, lr, alpha, eps, momentum,
                        weight_decay)
  check(C.fused_rmsprop_step(param, square_avg, momentum_buffer, grad, lr, alpha, eps, momentum,
                             weight_decay))
end

function M.adam_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay, step)
  check(C.fused_adam_step(param, exp_avg, exp_avg_sq, grad, lr, beta1, beta2, eps, weight_decay,
                          step))
end

return M
