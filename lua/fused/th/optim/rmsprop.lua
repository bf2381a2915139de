-- optim.rmsprop(opfunc, x, config, state), torch/optim's rmsprop.lua: learningRate (1e-2),
-- alpha (0.99), epsilon (1e-8), weightDecay, initialMean (0).
local fused = require 'fused'
local S = require 'fused.th.optim.state'

return function(opfunc, x, config, state)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 1e-2
  local alpha = config.alpha or 0.99
  local epsilon = config.epsilon or 1e-8
  local wd = config.weightDecay or 0
  local mfill = config.initialMean or 0
  local fx, dfdx = S.evaluate('rmsprop', opfunc, x)
  if wd ~= 0 then S.axpy(dfdx, wd, x) end
  if not state.m then
    state.m = S.zeros(dfdx):fill_(mfill)
    state.tmp = S.zeros(dfdx)
  end
  S.axpy(state.m:mul_(alpha), 1 - alpha, fused.mul(dfdx, dfdx))
  state.tmp:copy_(state.m):sqrt_():add_(epsilon)
  S.axpy(x, -lr, fused.div(dfdx, state.tmp))
  return x, { fx }
end
