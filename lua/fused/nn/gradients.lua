-- The gradient of every parameter tensor, keyed by the parameter (weakly: a parameter nobody
-- holds goes with its entry). Filled by Module:parameter and, for a module of Torch7's protocol,
-- by the weight and gradWeight (bias, gradBias) it set by hand. A parameter assigned to a second
-- module (decoder.weight = encoder.weight) keeps its one gradient there, and
-- clip_grad_norm(model:parameters(), c) knows each tensor for a parameter.
local M = {}

local of = setmetatable({}, { __mode = 'k' })

function M.register(param, grad) of[param] = grad end

-- The parameter's gradient (false for a parameter of Torch7's protocol set without one), or nil
-- for a tensor that is no module's parameter.
function M.of(param) return of[param] end

return M
