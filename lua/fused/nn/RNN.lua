-- A recurrent layer over a cell of your own (fused.cell.define, fused.ext.cell;
-- docs/extending.md), with what nn.LSTM has: stacked and bidirectional layers, ragged batches,
-- PyTorch's parameter names.
--
--   local rnn = fused.nn.RNN(input_size, hidden_size, {cell = spec, num_layers =, ...})
--   local hs, h_n, c_n = rnn:forward(xs, h0, c0, {lengths = lengths}) -- cells with state 'hc'
--   local hs, h_n = rnn:forward(xs, h0, {lengths = lengths})          -- cells with state 'h'
--   local d_xs, d_h0, d_c0 = rnn:backward(d_hs, d_hn, d_cn)
--   local hs, h_n, c_n, n_n, m_n = rnn:forward(xs, h0, c0, n0, m0)    -- state {'h', 'c', 'n', 'm'}
--
-- Parameters weight_ih_l0 (G·H×I), weight_hh_l0 (G·H×H; with heads = NH its blocks,
-- G·H×H/NH), bias_ih_l0, bias_hh_l0 (G·H), then a defined cell's per-unit parameters
-- (w_ci_l0: H), ...
local RNNBase = require 'fused.nn.RNNBase'
local gated = require 'fused.nn.gated_layer'
local linear_layer = require 'fused.nn.linear_layer'
local inputs = require 'fused.nn.inputs'

local RNN = RNNBase:extend('RNN')
RNN.takes_heads = true
RNN.add_layer, RNN.run_layer, RNN.back_layer = gated.add_layer, gated.run_layer, gated.back_layer

-- A dense cell whose step reads x, the layer's input at its unit, needs every layer's input
-- size to be hidden_size (a linear cell's layers check theirs: nn/linear_layer.lua).
local function check_reads_x(spec, input_size, H, opts)
  if spec.linear or not spec.reads_x or type(input_size) ~= 'number' or type(H) ~= 'number' then
    return
  end
  if input_size ~= H then
    error(string.format("RNN: cell '%s' reads x, the layer's input at its unit, so argument "
                        .. "'input_size' must equal 'hidden_size'; got input_size=%s, "
                        .. 'hidden_size=%s', spec.name, tostring(input_size), tostring(H)), 4)
  end
  local layers, width = opts.num_layers or 1, (opts.bidirectional and 2 or 1) * (spec.outputs or 1)
  if type(layers) == 'number' and layers > 1 and width > 1 then
    error(string.format("RNN: cell '%s' reads x, the layer's input at its unit, so each layer's "
                        .. "input size must equal 'hidden_size' (%d); with num_layers=%d%s layer 1 "
                        .. 'takes %d x %d = %d features', spec.name, H, layers,
                        opts.bidirectional and ' and bidirectional=true' or '', width, H,
                        width * H), 4)
  end
end

function RNN:__init(input_size, hidden_size, opts, ...)
  inputs.no_more('RNN', 3, ...)
  local spec = type(opts) == 'table' and opts.cell or nil
  if type(spec) ~= 'table' or not (spec.id or spec.linear) then
    error(string.format("RNN: option 'cell' expected a cell from fused.cell.define or "
                        .. 'fused.ext.cell, got %s', type(spec)), 3)
  end
  check_reads_x(spec, input_size, hidden_size, opts)
  local rest = {}
  for k, v in pairs(opts) do if k ~= 'cell' then rest[k] = v end end
  self.cell, self.gates, self.has_c = spec, spec.gates, spec.has_c
  if spec.linear then -- no recurrent weights: the scan engine (nn/linear_layer.lua)
    if opts.heads ~= nil then
      error(string.format("RNN: option 'heads' is not taken by the linear cell '%s': it has no "
                          .. 'recurrent weights to cut into heads', spec.name), 3)
    end
    self.add_layer, self.run_layer, self.back_layer = linear_layer.add_layer,
      linear_layer.run_layer, linear_layer.back_layer
    self.check_resets = linear_layer.check_resets
  end
  if spec.states and #spec.states > 2 then self.state_names = spec.states end
  self.outputs = spec.outputs
  RNNBase.__init(self, input_size, hidden_size, rest)
end

-- tostring: 'fused.nn.RNN(input_size=2, hidden_size=32, cell=mgu)'.
function RNN:extra_repr()
  return RNNBase.extra_repr(self):gsub('%)$', ', cell=' .. self.cell.name .. ')')
end

return RNN
