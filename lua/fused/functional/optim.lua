-- The optimizer updates as functions, one fused C pass over a parameter that writes param and
-- its state buffers in place, with PyTorch's formulas (optim/SGD.lua, RMSprop.lua, Adam.lua say
-- them). A nil momentum_buffer means momentum 0. The coefficients go to C as Lua numbers
-- (doubles): C derives 1 - beta and the like in double, as PyTorch does from its Python floats.
--
--   fused.functional.sgd_step(param, grad, momentum_buffer, lr, momentum, dampening,
--                             weight_decay, nesterov, first_step)
--   fused.functional.rmsprop_step(param, grad, square_avg, momentum_buffer, lr, alpha, eps,
--                                 momentum, weight_decay)
--   fused.functional.adam_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps,
--                              weight_decay, decoupled, step)   -- decoupled: AdamW
local lib = require 'fused.lib'

local C, check = lib.C, lib.check
local M = {}

function M.sgd_step(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov,
                    first_step)
  check(C.fused_sgd_step(param, momentum_buffer, grad, lr, momentum, dampening, weight_decay,
                         nesterov and 1 or 0, first_step and 1 or 0))
end

function M.rmsprop_step(param, grad, square_avg, momentum_buffer, lr, alpha, eps, momentum,
                        weight_decay)
  check(C.fused_rmsprop_step(param, square_avg, momentum_buffer, grad, lr, alpha, eps, momentum,
                             weight_decay))
end

function M.adam_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay,
                     decoupled, step)
  check(C.fused_adam_step(param, exp_avg, exp_avg_sq, grad, lr, beta1, beta2, eps, weight_decay,
                          decoupled and 1 or 0, step))
end

return M
