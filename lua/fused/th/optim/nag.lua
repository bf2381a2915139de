-- optim.nag(opfunc, x, config, state), torch/optim's nag.lua (Nesterov's accelerated
-- gradient): learningRate (1e-3), learningRateDecay, weightDecay, momentum (0.9),
-- learningRates.
local fused = require 'fused'
local S = require 'fused.th.optim.state'

return function(opfunc, x, config, state)
  config = config or {}
  state = state or config
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  local mom = config.momentum or 0.9
  local lrs = config.learningRates
  state.evalCounter = state.evalCounter or 0
  local nevals = state.evalCounter
  if mom <= 0 then error('optim.nag: momentum must be positive for Nesterov Accelerated Gradient', 2) end
  if state.dfdx then S.axpy(x, mom, state.dfdx) end
  local fx, dfdx = S.evaluate('nag', opfunc, x)
  if wd ~= 0 then S.axpy(dfdx, wd, x) end
  local clr = lr / (1 + nevals * lrd)
  if not state.dfdx then state.dfdx = S.zeros(dfdx) else state.dfdx:mul_(mom) end
  local delta = dfdx
  if lrs then
    state.deltaParameters = fused.mul(lrs, dfdx)
    delta = state.deltaParameters
  end
  S.axpy(x, -clr, delta)
  S.axpy(state.dfdx, -clr, delta)
  state.evalCounter = state.evalCounter + 1
  return x, { fx }
end
