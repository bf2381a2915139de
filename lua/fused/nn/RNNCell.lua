-- One step of a cell of your own (fused.cell.define or fused.ext.cell) as a cell module, as
-- nn.LSTMCell is for the LSTM, so that nn.Recurrent unrolls it: PyTorch's parameter names
-- (weight_ih, weight_hh, bias_ih, bias_hh) on the cell engine (RNNCellBase).
--
--   local cell = fused.nn.RNNCell(input_size, hidden_size, {cell = spec, dtype =, device =})
--   local new_h = cell:forward(x, h)                     -- state 'h': x B×I, h B×H
--   local new_h, new_c = cell:forward(x, h, c)           -- state 'hc'
--   local d_x, d_h, d_c = cell:backward(grad_h, grad_c)  -- adds into grad.<name>
local RNNCellBase = require 'fused.nn.RNNCellBase'
local inputs = require 'fused.nn.inputs'

local RNNCell = RNNCellBase:extend('RNNCell')

function RNNCell:__init(input_size, hidden_size, opts, ...)
  inputs.no_more('RNNCell', 3, ...)
  local spec = type(opts) == 'table' and opts.cell
  if type(spec) == 'table' and spec.linear then
    error(string.format("RNNCell: option 'cell': the %s cell is linear (the scan engine runs its "
                        .. 'layers); run it as nn.RNN over one step, T = 1', spec.name), 3)
  end
  if type(spec) ~= 'table' or not spec.id then
    error(string.format("RNNCell: option 'cell' expected a cell from fused.cell.define or "
                        .. 'fused.ext.cell, got %s', type(spec)), 3)
  end
  if (spec.states and #spec.states > 2) or (spec.params and #spec.params > 0) then
    error(string.format("RNNCell: option 'cell': the %s cell has %d states and %d per-unit "
                        .. "parameters; nn.RNNCell takes a cell of state 'h' or 'hc' without "
                        .. 'parameters (run it as nn.RNN over one step, T = 1)', spec.name,
                        #spec.states, #spec.params), 3)
  end
  local rest = {}
  for k, v in pairs(opts) do if k ~= 'cell' then rest[k] = v end end
  self.cell, self.gates, self.has_c = spec, spec.gates, spec.has_c
  RNNCellBase.__init(self, input_size, hidden_size, rest)
end

function RNNCell:forward(x, h, c, ...)
  if self.has_c then return self:step(x, h, c, ...) end
  return (self:step(x, h, nil, c, ...))
end

function RNNCell:backward(grad_h, grad_c)
  local d_x, d_h, d_c = self:step_backward(grad_h, grad_c)
  if self.has_c then return d_x, d_h, d_c end
  return d_x, d_h
end

function RNNCell:extra_repr()
  return RNNCellBase.extra_repr(self):gsub('%)$', ', cell=' .. self.cell.name .. ')')
end

return RNNCell
