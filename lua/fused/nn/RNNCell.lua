-- One step of a cell of your own (fused.cell.define or fused.ext.cell) as a cell module, as
-- nn.LSTMCell is for the LSTM, so that nn.Recurrent unrolls it: PyTorch's parameter names
-- (weight_ih, weight_hh, bias_ih, bias_hh) on the cell engine (RNNCellBase).
--
--   local cell = fused.nn.RNNCell(input_size, hidden_size, {cell = spec, dtype =, device =})
--   local new_h = cell:forward(x, h)                     -- state 'h': x B×I, h B×H
--   local new_h, new_c = cell:forward(x, h, c)           -- state 'hc'
--   local d_x, d_h, d_c = cell:backward(grad_h, grad_c)  -- adds into grad.<name>
--   local new_h, new_c = cell:forward(x)                 -- no state: zeros, as PyTorch's cell(x)
-- A cell of a list of states takes and returns them in its order, and its per-unit parameters
-- are parameters named as nn.RNN names them, without the layer suffix (w_ci), after the biases:
--   local s1, s2, s3 = cell:forward(x, s1, s2, s3)        -- each B×H
--   local d_x, d_s1, d_s2, d_s3 = cell:backward(grad_s1, grad_s2, grad_s3)
local RNNCellBase = require 'fused.nn.RNNCellBase'
local inputs = require 'fused.nn.inputs'
local blame = require 'fused.blame'
local functional = require 'fused.functional'
local cell_params = require 'fused.nn.cell_params'

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
  if spec.reads_x and input_size ~= hidden_size then
    error(string.format("RNNCell: cell '%s' reads x, the layer's input at its unit, so argument "
                        .. "'input_size' must equal 'hidden_size'; got input_size=%s, "
                        .. 'hidden_size=%s', spec.name, tostring(input_size),
                        tostring(hidden_size)), 3)
  end
  local rest = {}
  for k, v in pairs(opts) do if k ~= 'cell' then rest[k] = v end end
  self.cell, self.gates, self.has_c = spec, spec.gates, spec.has_c
  local params = spec.params or {}
  -- a list of more than two states, or per-unit parameters: the general form below
  self.general = (spec.states and #spec.states > 2) or #params > 0
  if self.general then self.state_names = spec.states end
  RNNCellBase.__init(self, input_size, hidden_size, rest)
  cell_params.add(self, spec, '', hidden_size, { dtype = self.weight_ih.dtype,
                                                 device = self.weight_ih.device })
end

-- The cell's per-unit parameters (or their gradients, from t = self.grad) in its order.
local function by_name(self, t)
  local list = {}
  for i, name in ipairs(self.cell.params) do list[i] = t[name] end
  return list
end

-- x B×I and the states B×H each, in the cell's order: the new states in the same order.
local function general_forward(self, x, ...)
  local fn, names, w = 'RNNCell:forward', self.state_names, self.weight_ih
  local K = #names
  inputs.no_more(fn, K + 1, select(K + 1, ...))
  inputs.floating(x, fn, 'x', w)
  local I, H = self.input_size, self.hidden_size
  if x.ndim ~= 2 or x.sizes[1] ~= I or x.sizes[0] < 1 then
    blame(string.format("%s: argument 'x' expected B x %d (B >= 1, input_size %d), got %s", fn, I,
                        I, inputs.shape_text(x)))
  end
  local B = tonumber(x.sizes[0])
  local states = { ... }
  if next(states) == nil then states = { self:zero_states(x, K) } end
  for k, name in ipairs(names) do
    inputs.shaped(states[k], fn, name, w, { B, H }, "B from 'x' x hidden_size")
  end
  local c = K > 1 and self:buffer_shaped('c_in', { B, (K - 1) * H }, x) or nil -- the engine's c
  for k = 2, K do c:narrow(2, (k - 2) * H + 1, H):copy_(states[k]) end
  local _, h_n, c_n, ctx = functional.rnn_forward(self.cell, x:contiguous():view(1, B, I), w,
    self.weight_hh, self.bias_ih,
    cell_params.joint(self, 'bias_hh_params', self.bias_hh, by_name(self, self), H, x),
    self:unshared(states[1]), c)
  self.saved = ctx
  local new = { h_n }
  for k = 2, K do new[k] = c_n:narrow(2, (k - 2) * H + 1, H):contiguous() end
  return unpack(new, 1, K)
end

-- The gradients at the new states, in the cell's order: d_x, then those at the old states.
local function general_backward(self, ...)
  local fn, names, ctx = 'RNNCell:backward', self.state_names, self:expect_saved()
  local K, H, GH = #names, self.hidden_size, self.gates * self.hidden_size
  inputs.no_more(fn, K, select(K + 1, ...))
  local grads, shape = { ... }, ctx.h0:shape()
  for k, name in ipairs(names) do
    inputs.shaped(grads[k], fn, 'grad_' .. name, self.weight_ih, shape, "forward's new " .. name)
  end
  local B = shape[1]
  local d_c = K > 1 and self:buffer_shaped('grad_c', { B, (K - 1) * H }, grads[1]) or nil
  for k = 2, K do d_c:narrow(2, (k - 2) * H + 1, H):copy_(grads[k]) end
  local params = self.cell.params
  local joint = self:buffer_shaped('d_bias_hh_params', { GH + #params * H }, grads[1], true)
  joint:zero_()
  local d_xs, d_h, d_cs = functional.rnn_backward_accumulate(ctx, nil, grads[1], d_c,
    { self.grad.weight_ih, self.grad.weight_hh, self.grad.bias_ih, joint })
  cell_params.split(joint, self.grad.bias_hh, by_name(self, self.grad), GH, H)
  local out = { d_xs:select(1, 1), d_h }
  for k = 2, K do out[k + 1] = d_cs:narrow(2, (k - 2) * H + 1, H):contiguous() end
  return unpack(out, 1, K + 1)
end

function RNNCell:forward(x, h, c, ...)
  if self.general then return general_forward(self, x, h, c, ...) end
  if self.has_c then return self:step(x, h, c, ...) end
  return (self:step(x, h, nil, c, ...))
end

function RNNCell:backward(grad_h, grad_c, ...)
  if self.general then return general_backward(self, grad_h, grad_c, ...) end
  local d_x, d_h, d_c = self:step_backward(grad_h, grad_c, ...)
  if self.has_c then return d_x, d_h, d_c end
  return d_x, d_h
end

function RNNCell:extra_repr()
  return RNNCellBase.extra_repr(self):gsub('%)$', ', cell=' .. self.cell.name .. ')')
end

return RNNCell
