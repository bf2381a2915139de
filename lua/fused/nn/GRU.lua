-- PyTorch's nn.GRU on the cell engine: stacked, optionally bidirectional, ragged batches.
--
--   local gru = fused.nn.GRU(input_size, hidden_size, {num_layers =, bidirectional =,
--     batch_first =, dropout =, bias =, dtype =, device =, compute =, heads =}) -- RNNBase's
--   local hs, h_n = gru:forward(xs, h0, {lengths = lengths})  -- xs T×B×I; h0 nil = zeros
--   local d_xs, d_h0 = gru:backward(d_hs, d_hn)      -- d_hn nil = zeros
--
-- Shapes and parameter names as nn.LSTM's, with 3H rows in gate order r, z, n (b_hn inside
-- r·(W_hn h + b_hn), as PyTorch). Memory kept for backward per layer and direction: hs T·B·H
-- plus saved 7·T·B·H (docs/cells.md).
local RNNBase = require 'fused.nn.RNNBase'
local gated = require 'fused.nn.gated_layer'

local GRU = RNNBase:extend('GRU')
GRU.cell, GRU.gates, GRU.has_c = 'gru', 3, false
GRU.takes_heads = true
GRU.add_layer, GRU.run_layer, GRU.back_layer = gated.add_layer, gated.run_layer, gated.back_layer

return GRU
