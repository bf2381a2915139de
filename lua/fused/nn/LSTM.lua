-- PyTorch's nn.LSTM on the cell engine: stacked, optionally bidirectional, ragged batches.
--
--   local lstm = fused.nn.LSTM(input_size, hidden_size, {num_layers =, bidirectional =,
--     batch_first =, dropout =, bias =, dtype =, device =, compute =, heads =}) -- RNNBase's
--   local hs, h_n, c_n = lstm:forward(xs, h0, c0, {lengths = lengths}) -- h0, c0 nil = zeros
--   local d_xs, d_h0, d_c0 = lstm:backward(d_hs, d_hn, d_cn) -- d_hn, d_cn nil = zeros
--
-- hs T×B×(D·H) (D = 2 when bidirectional), zero at padded steps; h0, c0, h_n, c_n
-- (num_layers·D)×B×H (h0 and c0 may be B×H when that is 1). Parameters weight_ih_l0
-- (4H×I), weight_hh_l0 (4H×H; with heads = NH its blocks, 4H×H/NH), bias_ih_l0, bias_hh_l0 (4H), ..._reverse, _l1, in gate order
-- i, f, g, o; gradients grad.<name>, which backward ADDS into. named_parameters() walks them
-- in PyTorch's order. Memory kept for backward per layer and direction: hs T·B·H plus saved
-- 7·T·B·H (docs/cells.md).
local RNNBase = require 'fused.nn.RNNBase'
local gated = require 'fused.nn.gated_layer'

local LSTM = RNNBase:extend('LSTM')
LSTM.cell, LSTM.gates, LSTM.has_c = 'lstm', 4, true
LSTM.takes_heads = true
LSTM.add_layer, LSTM.run_layer, LSTM.back_layer = gated.add_layer, gated.run_layer, gated.back_layer

return LSTM
