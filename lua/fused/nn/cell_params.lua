-- A defined cell's per-unit parameters (cell.params, H each) on a module: their creation with
-- the cell's init, and the engine's one vector of the recurrent biases followed by them
-- (functional/rnn.lua), with its gradient split back into the parts.
local M = {}

-- Parameters name .. suffix for the cell's params (none for a built-in cell, nil), initialised
-- as cell.init says: 'uniform' (the default) PyTorch's ±1/√H as the biases, 'ones', 'zeros'
-- (as a parameter starts).
function M.add(self, cell, suffix, H, opts)
  local stdv, init = 1 / math.sqrt(H), cell and cell.init or {}
  for _, name in ipairs(cell and cell.params or {}) do
    local p = self:parameter(name .. suffix, { H }, opts)
    local how = init[name] or 'uniform'
    if how == 'uniform' then p:uniform(-stdv, stdv) elseif how == 'ones' then p:fill_(1) end
  end
end

-- The engine's recurrent-bias vector, in the buffer `name` shaped like x: bias_hh (G·H) then
-- each of params (H each, in the cell's order).
function M.joint(self, name, bias_hh, params, H, x)
  local GH = tonumber(bias_hh.sizes[0])
  local b = self:buffer_shaped(name, { GH + #params * H }, x)
  b:narrow(1, 1, GH):copy_(bias_hh)
  for i, p in ipairs(params) do b:narrow(1, GH + (i - 1) * H + 1, H):copy_(p) end
  return b
end

-- Adds the joint vector's gradient d_joint into d_bias_hh (nil: the module has no biases) and
-- each of d_params.
function M.split(d_joint, d_bias_hh, d_params, GH, H)
  if d_bias_hh then d_bias_hh:add_(d_joint:narrow(1, 1, GH)) end
  for i, g in ipairs(d_params) do g:add_(d_joint:narrow(1, GH + (i - 1) * H + 1, H)) end
end

return M
