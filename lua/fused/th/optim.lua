-- Torch7's optim package inside `fused th` (require 'optim'): the closure API,
-- optim.NAME(opfunc, x, config, state) with opfunc(x) returning f(x) and df/dx (x one flat
-- tensor: getParameters()), each as torch/optim's NAME.lua computes it (lua/fused/th/optim/);
-- and its ConfusionMatrix and Logger.
local optim = {}

for _, name in ipairs({ 'sgd', 'adam', 'adagrad', 'rmsprop', 'lbfgs', 'nag', 'adadelta', 'adamax',
                        'lswolfe', 'polyinterp' }) do
  optim[name] = require('fused.th.optim.' .. name)
end

require('fused.th.optim.ConfusionMatrix')(optim)
require('fused.th.optim.Logger')(optim)

rawset(_G, 'optim', optim)
return optim
