-- optim.adadelta(opfunc, x, config, state), torch/optim's adadelta.lua: rho (0.9), eps (1e-6),
-- weightDecay.
local fused = require 'fused'
local S = require 'fused.th.optim.state'

return function(opfunc, x, config, state)
  config = config or {}
  state = state or config
  local rho = config.rho or 0.9
  local eps = config.eps or 1e-6
  local wd = config.weightDecay or 0
  state.evalCounter = state.evalCounter or 0
  local fx, dfdx = S.evaluate('adadelta', opfunc, x)
  if wd ~= 0 then S.axpy(dfdx, wd, x) end
  if not state.paramVariance then
    state.paramVariance, state.paramStd = S.zeros(dfdx), S.zeros(dfdx)
    state.delta, state.accDelta = S.zeros(dfdx), S.zeros(dfdx)
  end
  S.axpy(state.paramVariance:mul_(rho), 1 - rho, fused.mul(dfdx, dfdx))
  state.paramStd:copy_(state.paramVariance):add_(eps):sqrt_()
  state.delta:copy_(state.accDelta):add_(eps):sqrt_():div_(state.paramStd):mul_(dfdx)
  S.axpy(x, -1, state.delta)
  S.axpy(state.accDelta:mul_(rho), 1 - rho, fused.mul(state.delta, state.delta))
  state.evalCounter = state.evalCounter + 1
  return x, { fx }
end
