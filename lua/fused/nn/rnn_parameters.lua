-- Named parameters for the recurrent modules (RNNBase, RNNCellBase): each a field of the
-- module under its PyTorch name (weight_ih_l0, ...), its gradient under `grad_name`, listed in
-- PyTorch's order in module.parameter_names, which named_parameters (and so parameters,
-- state_dict and load_state_dict, Module's) follows.
local tensor = require 'fused.tensor'

local M = {}

-- A parameter of `shape`, uniform in ±1/sqrt(hidden_size) as PyTorch's, and its zero gradient.
function M.add(module, name, grad_name, shape, opts)
  local stdv = 1 / math.sqrt(module.hidden_size)
  module[name] = tensor.empty(shape, opts):uniform(-stdv, stdv)
  module[grad_name] = tensor.zeros(shape, opts)
  local list = module.parameter_names or {}
  list[#list + 1] = { name, grad_name }
  module.parameter_names = list
end

-- for name, param, grad in module:named_parameters() do ... end
function M.named_parameters(module)
  local i, list = 0, module.parameter_names
  return function()
    i = i + 1
    local e = list[i]
    if e then return e[1], module[e[1]], module[e[2]] end
  end
end

return M
