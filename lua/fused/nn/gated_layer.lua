-- The layers of the cells with PyTorch's two weights and two biases (LSTM, GRU, nn.RNN's), for
-- RNNBase: their parameters and one layer-direction through functional.rnn_forward/backward.
-- Without biases (has_bias false) the engine gets a zero bias and gradient buffers that are
-- thrown away. A defined cell's per-unit parameters (cell.params: H each, named as PyTorch
-- names its tensors, w_ci_l0, w_ci_l0_reverse) follow the biases; the engine takes them after
-- the recurrent biases in one vector (functional/rnn.lua), copied there for each run.
local functional = require 'fused.functional'
local cell_params_ = require 'fused.nn.cell_params'

local M = {}

local function cell_params(self) return self.cell and self.cell.params or {} end

function M.add_layer(self, l, suffix, in_size, opts)
  local GH, H = self.gates * self.hidden_size, self.hidden_size
  local stdv = 1 / math.sqrt(H) -- PyTorch's initialisation, of the dense matrix's H too
  -- with heads, w_hh is a block-diagonal matrix's blocks: H / heads columns (docs/cells.md)
  local params = { { 'weight_ih', { GH, in_size } }, { 'weight_hh', { GH, H / self.heads } } }
  if self.has_bias then
    params[3], params[4] = { 'bias_ih', { GH } }, { 'bias_hh', { GH } }
  end
  for _, p in ipairs(params) do
    self:parameter(p[1] .. suffix, p[2], opts):uniform(-stdv, stdv)
  end
  cell_params_.add(self, self.cell, suffix, H, opts)
end

-- The parameters of layer-direction k (and their gradients): from parameter_names, or the zero
-- bias and scratch gradients when there are no biases; with per-unit parameters, p[4] and g[4]
-- are the engine's vector of the recurrent biases and them, and p[5..], g[5..] those parts.
local function layer(self, k, x)
  local n, P = self.parameter_names, #cell_params(self)
  local per = (self.has_bias and 4 or 2) + P
  local p, g = {}, {}
  for i = 1, per do
    local name = n[per * (k - 1) + i]
    p[i], g[i] = self[name], self.grad[name]
  end
  if P > 0 then -- the parameters after the biases (or none): move them to 5..
    for i = P, 1, -1 do p[4 + i], g[4 + i] = p[per - P + i], g[per - P + i] end
  end
  if not self.has_bias then
    local GH = { tonumber(p[1].sizes[0]) }
    p[3] = self:buffer_shaped('zero_bias', GH, x, true)
    p[4] = p[3]
    g[3] = self:buffer_shaped('unused_d_bias_ih', GH, x)
    g[4] = self:buffer_shaped('unused_d_bias_hh', GH, x)
  end
  if P > 0 then
    p[4] = cell_params_.joint(self, 'bias_hh_params' .. k, p[4], { unpack(p, 5, 4 + P) },
                              self.hidden_size, x)
    g[4] = self:buffer_shaped('d_bias_hh_params', p[4]:shape(), x)
  end
  return p, g
end

function M.run_layer(self, k, x, h0, c0, lengths, reverse, out)
  local p = layer(self, k, x)
  local _, _, _, ctx = functional.rnn_forward(self.cell, x, p[1], p[2], p[3], p[4], h0, c0,
    { lengths = lengths, reverse = reverse, out = out, compute = self.compute,
      heads = self.heads })
  return ctx
end

function M.back_layer(self, k, ctx, d_hs, d_hn, d_cn, out)
  local _, g = layer(self, k, d_hs)
  local P = #cell_params(self)
  if P > 0 then g[4]:zero_() end
  functional.rnn_backward_accumulate(ctx, d_hs, d_hn, d_cn, g, { out = out })
  if P > 0 then -- the parts of the joint gradient: the recurrent biases' and the parameters'
    local d_bias_hh = self.has_bias and self.grad[self.parameter_names[(4 + P) * (k - 1) + 4]]
    cell_params_.split(g[4], d_bias_hh, { unpack(g, 5, 4 + P) }, tonumber(g[1].sizes[0]),
                       self.hidden_size)
  end
end

return M
