-- The cell engine on the GPU: every cell's sequence module (LSTM, GRU, LLTM), stacked,
-- bidirectional and ragged, against the same module on the CPU, in float64 and float32; the
-- golden LSTM and GRU cases. Without a device every test is pending with fused.cuda.why().
local helper = require 'spec.helper'
local fused = helper.fused
local close = helper.assert_close

local gpu_it = helper.gpu_it

-- forward and backward of m on xs (lengths: a list or nil): every output, gradient and
-- parameter gradient, in order, copied to the CPU.
local function run(m, xs, lengths, d_hs) return helper.rnn_results(m, xs, nil, nil, lengths, d_hs) end

describe('the cell engine on the GPU', function()
  for _, dtype in ipairs({ 'float64', 'float32' }) do
    for _, class in ipairs({ 'LSTM', 'GRU', 'LLTM' }) do
      gpu_it(string.format('%s, 2 layers, bidirectional, ragged, agrees with the CPU in %s', class,
                           dtype), function()
        fused.manual_seed(5)
        local o = { dtype = dtype }
        local T, B, I, H = 7, 5, 6, 8
        local cpu = fused.nn[class](I, H, { num_layers = 2, bidirectional = true, dtype = dtype })
        local gpu = fused.nn[class](I, H, { num_layers = 2, bidirectional = true, dtype = dtype })
        for name, p in cpu:named_parameters() do gpu[name]:copy(p) end
        gpu:cuda()
        local xs, d_hs = fused.randn({ T, B, I }, o), fused.randn({ T, B, 2 * H }, o)
        local lengths = { 7, 2, 5, 1, 7 }
        local want, got = run(cpu, xs, lengths, d_hs), run(gpu, xs:cuda(), lengths, d_hs:cuda())
        assert.are.equal(#want, #got)
        local tol = dtype == 'float64' and 1e-12 or 1e-5
        for i = 1, #want do close(got[i], want[i], tol, class .. ' result ' .. i) end
      end)
    end

    -- PyTorch's options: batch_first, no biases, lengths as a tensor; dropout in evaluation
    -- mode against the CPU, in training mode it runs (the masks are the device's draws).
    for _, class in ipairs({ 'LSTM', 'GRU', 'LLTM' }) do
      gpu_it(string.format('%s with batch_first, bias = false, dropout agrees with the CPU in %s',
                           class, dtype), function()
        fused.manual_seed(6)
        local o = { dtype = dtype }
        local T, B, I, H = 5, 3, 4, 6
        local opts = { num_layers = 2, batch_first = true, bias = false, dropout = 0.3, dtype = dtype }
        local cpu, gpu = fused.nn[class](I, H, opts), fused.nn[class](I, H, opts)
        gpu:load_state_dict(cpu:state_dict())
        gpu:cuda()
        local xs, d_hs = fused.randn({ B, T, I }, o), fused.randn({ B, T, H }, o)
        local lengths = fused.tensor({ 5, 1, 3 }, { dtype = 'int64' })
        local trained = run(gpu, xs:cuda(), lengths, d_hs:cuda())
        assert.are.same({ B, T, H }, trained[1]:shape())
        cpu:eval(); gpu:eval(); gpu:zero_grad()
        local want, got = run(cpu, xs, lengths, d_hs), run(gpu, xs:cuda(), lengths, d_hs:cuda())
        local tol = dtype == 'float64' and 1e-12 or 1e-5
        for i = 1, #want do close(got[i], want[i], tol, class .. ' result ' .. i) end
      end)
    end

    for _, class in ipairs({ 'LSTM', 'GRU' }) do
      gpu_it(string.format('%s matches PyTorch on the lengths case in %s', class, dtype), function()
        local path = class:lower() .. '_seq/lengths'
        local g = helper.golden_case(path, dtype, 'cuda')
        local m = fused.nn[class](3, 6, { num_layers = 2, bidirectional = true, dtype = dtype })
        m:cuda()
        for name, p in m:named_parameters() do p:copy(g[name]) end
        local lengths = { 8, 3, 5, 1, 8 }
        local hs = m.has_c and m:forward(g.xs, g.h0, g.c0, { lengths = lengths })
          or m:forward(g.xs, g.h0, { lengths = lengths })
        close(hs, g.hs, helper.golden_tolerance(path, 'hs', dtype), 'hs')
        local d_xs = m.has_c and m:backward(g.r, g.s_h, g.s_c) or m:backward(g.r, g.s_h)
        close(d_xs, g.d_xs, helper.golden_tolerance(path, 'd_xs', dtype), 'd_xs')
        for name, _, grad in m:named_parameters() do
          close(grad, g['d_' .. name], helper.golden_tolerance(path, 'd_' .. name, dtype), name)
        end
      end)
    end
  end
end)
