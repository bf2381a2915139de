-- PyTorch's nn.LSTMCell (gate order i, f, g, o) on the cell engine (RNNCellBase).
--
--   local cell = fused.nn.LSTMCell(input_size, hidden_size, {dtype =, device =})
--   local new_h, new_c = cell:forward(x, h, c)           -- x B×I, h and c B×H
--   local d_x, d_h, d_c = cell:backward(grad_h, grad_c)  -- adds into grad.<name>
local RNNCellBase = require 'fused.nn.RNNCellBase'

local LSTMCell = RNNCellBase:extend('LSTMCell')
LSTMCell.cell, LSTMCell.gates, LSTMCell.has_c = 'lstm', 4, true

function LSTMCell:forward(x, h, c, ...) return self:step(x, h, c, ...) end
function LSTMCell:backward(grad_h, grad_c) return self:step_backward(grad_h, grad_c) end

return LSTMCell
