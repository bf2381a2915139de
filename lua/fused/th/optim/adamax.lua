-- optim.adamax(opfunc, x, config, state), torch/optim's adamax.lua: learningRate (0.002),
-- beta1 (0.9), beta2 (0.999), epsilon (1e-38), weightDecay.
local fused = require 'fused'
local S = require 'fused.th.optim.state'

return function(opfunc, x, config, state)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 0.002
  local beta1, beta2 = config.beta1 or 0.9, config.beta2 or 0.999
  local epsilon = config.epsilon or 1e-38
  local wd = config.weightDecay or 0
  local fx, dfdx = S.evaluate('adamax', opfunc, x)
  if wd ~= 0 then S.axpy(dfdx, wd, x) end
  state.t = state.t or 0
  state.m = state.m or S.zeros(dfdx)
  state.u = state.u or S.zeros(dfdx)
  state.t = state.t + 1
  S.axpy(state.m:mul_(beta1), 1 - beta1, dfdx)
  state.u:copy_(fused.maximum(fused.mul(state.u, beta2), fused.abs(dfdx):add_(epsilon)))
  local stepSize = lr / (1 - beta1 ^ state.t)
  S.axpy(x, -stepSize, fused.div(state.m, state.u))
  return x, { fx }
end
