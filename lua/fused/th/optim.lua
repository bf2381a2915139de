-- Torch7's optim package inside `fused th` (require 'optim'): the closure API,
-- optim.NAME(opfunc, x, config, state) with opfunc(x) returning f(x) and df/dx (x one flat
-- tensor: getParameters()), each as torch/optim's NAME.lua computes it (lua/fused/th/optim/).
local optim = {}

for _, name in ipairs({ 'sgd', 'adam', 'adagrad', 'rmsprop', 'lbfgs', 'nag', 'adadelta', 'adamax' }) do
  optim[name] = require('fused.th.optim.' .. name)
end

rawset(_G, 'optim', optim)
return optim
