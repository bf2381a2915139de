-- The layers of the cells with PyTorch's two weights and two biases (LSTM, GRU), for RNNBase:
-- their parameters and one layer-direction through functional.rnn_forward/backward. Without
-- biases (has_bias false) the engine gets a zero bias and gradient buffers that are thrown away.
local functional = require 'fused.functional'

local M = {}

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
end

-- The parameters of layer-direction k (and their gradients): from parameter_names, or the zero
-- bias and scratch gradients when there are no biases.
local function layer(self, k, x)
  local n, per = self.parameter_names, self.has_bias and 4 or 2
  local p, g = {}, {}
  for i = 1, per do
    local name = n[per * (k - 1) + i]
    p[i], g[i] = self[name], self.grad[name]
  end
  if not self.has_bias then
    local GH = { tonumber(p[1].sizes[0]) }
    p[3] = self:buffer_shaped('zero_bias', GH, x, true)
    p[4] = p[3]
    g[3] = self:buffer_shaped('unused_d_bias_ih', GH, x)
    g[4] = self:buffer_shaped('unused_d_bias_hh', GH, x)
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
  functional.rnn_backward_accumulate(ctx, d_hs, d_hn, d_cn, g, { out = out })
end

return M
