-- What a ragged batch holds past a sequence's length is never read, as PyTorch's packed
-- sequences never read it: xs with NaN, inf or a huge value at the padded steps gives the same
-- hs, final states, d_xs (zero there) and parameter gradients, to the bit, as xs with zeros
-- there, for the dense engine (LSTM, GRU) and the linear cells (minGRU, RG-LRU, which reads x,
-- the LRU, the SRU's computed output), bidirectional and with resets, batch_first too, and for
-- nn.Recurrent unrolling a cell step by step, on the CPU and the emulated CUDA device.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'

local cache = os.tmpname()
local o = { dtype = 'float64' }
local LINEAR = { mingru = true, rglru = true, lru = true, sru = true } -- these take resets

local function model(name)
  if name == 'lstm' then return fused.nn.LSTM(3, 3, { bidirectional = true, dtype = 'float64' }) end
  if name == 'gru' then return fused.nn.GRU(3, 3, { batch_first = true, dtype = 'float64' }) end
  if name == 'unrolled lstm' then return fused.nn.Recurrent(fused.nn.LSTMCell(3, 3, o)) end
  if name == 'unrolled gru' then return fused.nn.Recurrent(fused.nn.GRUCell(3, 3, o)) end
  local cell = fused.cell.define(ref.example(name, cache .. '.d'))
  -- rglru reads x: one layer (its input size must equal hidden_size)
  return fused.nn.RNN(3, 3, { cell = cell, bidirectional = true, dtype = 'float64',
                              num_layers = name == 'rglru' and 1 or 2,
                              bias = name ~= 'mingru' })
end

-- forward and backward with xs's padded steps set to pad: every result, copied to the CPU.
local function run(m, name, xs, pad, lengths, resets, device)
  local x = xs:clone()
  local bf = m.batch_first
  for b, n in ipairs(lengths) do
    if n < x:size(bf and 2 or 1) then
      local rows = bf and x:select(1, b):narrow(1, n + 1, x:size(2) - n)
                   or x:narrow(1, n + 1, x:size(1) - n):select(2, b)
      rows:fill(pad)
    end
  end
  local opts = { lengths = lengths, resets = resets }
  if device then x = x:cuda(); opts.resets = resets and resets:cuda() end
  local nstates = #(m.state_names or (m.has_c and { 'h', 'c' } or { 'h' }))
  local args = { x }
  args[nstates + 2] = opts
  local outs = { m:forward(unpack(args, 1, nstates + 2)) }
  m:zeroGradParameters()
  local d = { m:backward(outs[1]:clone():fill(1)) }
  local got = {}
  for i, t in ipairs(outs) do got['out' .. i] = t:cpu():clone() end
  got.d_xs = d[1]:cpu():clone()
  for pn, _, g in m:named_parameters() do got['d_' .. pn] = g:cpu():clone() end
  return got
end

describe('values past a sequence\'s length are never read', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  for _, device in ipairs({ false, 'cuda' }) do
    local test = device and helper.gpu_it or it
    for _, name in ipairs({ 'lstm', 'gru', 'unrolled lstm', 'unrolled gru', 'mingru', 'rglru',
                            'lru', 'sru' }) do
      test(name .. ': NaN, inf and 1e300 padding give what zeros give, on ' .. (device or 'cpu'),
           function()
        fused.manual_seed(51)
        local m = model(name)
        if device then m:cuda() end
        local T, B = 5, 3
        local xs = fused.randn(m.batch_first and { B, T, 3 } or { T, B, 3 }, o)
        local lengths = { 5, 2, 4 }
        local resets = nil
        if LINEAR[name] then
          resets = fused.zeros({ T, B }, { dtype = 'bool' })
          resets[3][1], resets[2][3] = true, true
        end
        local want = run(m, name, xs, 0, lengths, resets, device)
        for _, pad in ipairs({ 0 / 0, 1 / 0, -1e300 }) do
          local got = run(m, name, xs, pad, lengths, resets, device)
          for _, k in ipairs(helper.sorted_keys(want)) do
            helper.assert_close(got[k], want[k], 0, name .. ' pad ' .. pad .. ' ' .. k)
          end
        end
      end)
    end
  end
end)
