-- optim.adam(opfunc, x, config, state), torch/optim's adam.lua: learningRate (1e-3),
-- learningRateDecay, beta1 (0.9), beta2 (0.999), epsilon (1e-8), weightDecay.
local fused = require 'fused'
local S = require 'fused.th.optim.state'

return function(opfunc, x, config, state)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 0.001
  local lrd = config.learningRateDecay or 0
  local beta1, beta2 = config.beta1 or 0.9, config.beta2 or 0.999
  local epsilon = config.epsilon or 1e-8
  local wd = config.weightDecay or 0
  local fx, dfdx = S.evaluate('adam', opfunc, x)
  if wd ~= 0 then S.axpy(dfdx, wd, x) end
  state.t = state.t or 0
  state.m = state.m or S.zeros(dfdx)
  state.v = state.v or S.zeros(dfdx)
  state.denom = state.denom or S.zeros(dfdx)
  local clr = lr / (1 + state.t * lrd)
  state.t = state.t + 1
  S.axpy(state.m:mul_(beta1), 1 - beta1, dfdx)
  S.axpy(state.v:mul_(beta2), 1 - beta2, fused.mul(dfdx, dfdx))
  state.denom:copy_(state.v):sqrt_():add_(epsilon)
  local biasCorrection1 = 1 - beta1 ^ state.t
  local biasCorrection2 = 1 - beta2 ^ state.t
  local stepSize = clr * math.sqrt(biasCorrection2) / biasCorrection1
  S.axpy(x, -stepSize, fused.div(state.m, state.denom))
  return x, { fx }
end
