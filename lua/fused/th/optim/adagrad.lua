-- optim.adagrad(opfunc, x, config, state), torch/optim's adagrad.lua: learningRate (1e-3),
-- learningRateDecay, weightDecay; x moves by -clr g / (sqrt(sum of g^2) + 1e-10).
local fused = require 'fused'
local S = require 'fused.th.optim.state'

return function(opfunc, x, config, state)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  state.evalCounter = state.evalCounter or 0
  local nevals = state.evalCounter
  local fx, dfdx = S.evaluate('adagrad', opfunc, x)
  if wd ~= 0 then S.axpy(dfdx, wd, x) end
  local clr = lr / (1 + nevals * lrd)
  if not state.paramVariance then
    state.paramVariance = S.zeros(dfdx)
    state.paramStd = S.zeros(dfdx)
  end
  state.paramVariance:add_(fused.mul(dfdx, dfdx))
  state.paramStd:copy_(state.paramVariance):sqrt_():add_(1e-10)
  S.axpy(x, -clr, fused.div(dfdx, state.paramStd))
  state.evalCounter = state.evalCounter + 1
  return x, { fx }
end
