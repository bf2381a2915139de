-- PyTorch's nn.GRUCell (gate order r, z, n; b_hn inside r·(W_hn h + b_hn)) on the cell engine
-- (RNNCellBase).
--
--   local cell = fused.nn.GRUCell(input_size, hidden_size, {dtype =, device =})
--   local new_h = cell:forward(x, h)              -- x B×I, h B×H
--   local d_x, d_h = cell:backward(grad_h)        -- adds into grad.<name>
local RNNCellBase = require 'fused.nn.RNNCellBase'

local GRUCell = RNNCellBase:extend('GRUCell')
GRUCell.cell, GRUCell.gates, GRUCell.has_c = 'gru', 3, false

function GRUCell:forward(x, h, ...) return (self:step(x, h, nil, ...)) end

function GRUCell:backward(grad_h, ...)
  local d_x, d_h = self:step_backward(grad_h, ...)
  return d_x, d_h
end

return GRUCell
