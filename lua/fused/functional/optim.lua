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
local blame = require 'fused.blame'
local argcheck = require 'fused.check'
local args = require 'fused.functional.args'

local C, check = lib.C, args.check
local M = {}

-- The arguments of a step, checked in the order given: {name, value, kind}, kind 'tensor',
-- 'buffer' (a tensor or nil), 'number', 'flag' (a boolean; nil is false) or 'step' (an integer).
local function expect(fn, list)
  for _, a in ipairs(list) do
    local name, v, kind = a[1], a[2], a[3]
    if kind == 'tensor' then
      args.expect_floating(v, fn, name)
    elseif kind == 'buffer' then
      args.optional_floating(v, fn, name)
    elseif kind == 'flag' then
      if v ~= nil and type(v) ~= 'boolean' then
        blame(string.format("%s: argument '%s' expected a boolean, got %s", fn, name,
                            argcheck.type_name(v)))
      end
    else
      argcheck.expect_number(v, fn, name)
      if kind == 'step' and v ~= math.floor(v) then
        blame(string.format("%s: argument '%s' expected an integer, got %s", fn, name, tostring(v)))
      end
    end
  end
end

function M.sgd_step(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov,
                    first_step, ...)
  local fn = 'sgd_step'
  args.no_more(fn, 9, ...)
  expect(fn, { { 'param', param, 'tensor' }, { 'grad', grad, 'tensor' },
               { 'momentum_buffer', momentum_buffer, 'buffer' }, { 'lr', lr, 'number' },
               { 'momentum', momentum, 'number' }, { 'dampening', dampening, 'number' },
               { 'weight_decay', weight_decay, 'number' }, { 'nesterov', nesterov, 'flag' },
               { 'first_step', first_step, 'flag' } })
  check(C.fused_sgd_step(param, momentum_buffer, grad, lr, momentum, dampening, weight_decay,
                         nesterov and 1 or 0, first_step and 1 or 0), fn)
end

function M.rmsprop_step(param, grad, square_avg, momentum_buffer, lr, alpha, eps, momentum,
                        weight_decay, ...)
  local fn = 'rmsprop_step'
  args.no_more(fn, 9, ...)
  expect(fn, { { 'param', param, 'tensor' }, { 'grad', grad, 'tensor' },
               { 'square_avg', square_avg, 'tensor' },
               { 'momentum_buffer', momentum_buffer, 'buffer' }, { 'lr', lr, 'number' },
               { 'alpha', alpha, 'number' }, { 'eps', eps, 'number' },
               { 'momentum', momentum, 'number' }, { 'weight_decay', weight_decay, 'number' } })
  check(C.fused_rmsprop_step(param, square_avg, momentum_buffer, grad, lr, alpha, eps, momentum,
                             weight_decay), fn)
end

function M.adam_step(param, grad, exp_avg, exp_avg_sq, lr, beta1, beta2, eps, weight_decay,
                     decoupled, step, ...)
  local fn = 'adam_step'
  args.no_more(fn, 11, ...)
  expect(fn, { { 'param', param, 'tensor' }, { 'grad', grad, 'tensor' },
               { 'exp_avg', exp_avg, 'tensor' }, { 'exp_avg_sq', exp_avg_sq, 'tensor' },
               { 'lr', lr, 'number' }, { 'beta1', beta1, 'number' }, { 'beta2', beta2, 'number' },
               { 'eps', eps, 'number' }, { 'weight_decay', weight_decay, 'number' },
               { 'decoupled', decoupled, 'flag' }, { 'step', step, 'step' } })
  check(C.fused_adam_step(param, exp_avg, exp_avg_sq, grad, lr, beta1, beta2, eps, weight_decay,
                          decoupled and 1 or 0, step), fn)
end

return M
