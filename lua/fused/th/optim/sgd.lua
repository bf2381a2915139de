-- optim.sgd(opfunc, x, config, state), torch/optim's sgd.lua: learningRate (1e-3),
-- learningRateDecay, weightDecay or weightDecays, momentum, dampening (default momentum),
-- nesterov, learningRates. Returns x and {f(x)} (f before the step).
local fused = require 'fused'
local S = require 'fused.th.optim.state'

return function(opfunc, x, config, state)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  local mom = config.momentum or 0
  local damp = config.dampening or mom
  local nesterov = config.nesterov or false
  local lrs, wds = config.learningRates, config.weightDecays
  state.evalCounter = state.evalCounter or 0
  local nevals = state.evalCounter
  if nesterov and not (mom > 0 and damp == 0) then
    error('optim.sgd: Nesterov momentum requires a momentum and zero dampening', 2)
  end
  local fx, dfdx = S.evaluate('sgd', opfunc, x)
  if wd ~= 0 then
    S.axpy(dfdx, wd, x)
  elseif wds then
    state.decayParameters = fused.mul(wds, x)
    dfdx:add_(state.decayParameters)
  end
  if mom ~= 0 then
    if not state.dfdx then
      state.dfdx = dfdx:clone()
    else
      S.axpy(state.dfdx:mul_(mom), 1 - damp, dfdx)
    end
    if nesterov then S.axpy(dfdx, mom, state.dfdx) else dfdx = state.dfdx end
  end
  local clr = lr / (1 + nevals * lrd)
  if lrs then
    state.deltaParameters = fused.mul(lrs, dfdx)
    S.axpy(x, -clr, state.deltaParameters)
  else
    S.axpy(x, -clr, dfdx)
  end
  state.evalCounter = state.evalCounter + 1
  return x, { fx }
end
