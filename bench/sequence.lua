-- Training-step throughput of the cell engine over a sequence, float32, T = 100:
-- nn.LLTM, nn.LSTM and nn.GRU, each padded (every sequence T steps) and ragged (lengths uniform
-- in 1..T, fixed seed). A step is forward from a zero state, then backward of the sum of every
-- h_t (d_hs = ones), d_xs included. tokens/s = T·B per second of the median step (min beside
-- it), on one thread and on all. The compute limit is the step's GEMM flops, 3 · 2·T·B·(I+H)·G·H (forward: input and
-- recurrent projections; backward: d_xs, d_w_ih, d_h, d_w_hh), at the rate of a 1024³ sgemm
-- measured in this run. Run: make bench-seq; the LLTM against another revision's:
-- make bench-compare BASE=rev (docs/cells.md has the numbers).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'

local bench = require 'bench.common'
local function now_ms() return bench.now_us() * 1e-3 end

local T = 100
local CONFIGS = { { 16, 32, 128 }, { 64, 256, 512 } }
local CELLS = { { 'LLTM', 3 }, { 'LSTM', 4 }, { 'GRU', 3 } }

local function ragged_lengths(B)
  fused.manual_seed(1)
  local u, lengths = fused.rand({ B }, { dtype = 'float64' }):totable(), {}
  for b = 1, B do lengths[b] = math.floor(u[b] * T) + 1 end
  return lengths
end

local function time_seq(class, B, I, H, lengths)
  fused.manual_seed(0)
  local rnn = fused.nn[class](I, H)
  local xs, ones = fused.randn({ T, B, I }), fused.ones({ T, B, H })
  local warm, iters = 2, B * H < 10000 and 20 or 3
  local samples = {}
  collectgarbage()
  for i = 1, warm + iters do
    local t0 = now_ms()
    if rnn.has_c then rnn:forward(xs, nil, nil, { lengths = lengths })
    else rnn:forward(xs, nil, { lengths = lengths }) end
    rnn:backward(ones)
    if i > warm then samples[#samples + 1] = now_ms() - t0 end
  end
  return bench.median_min(samples)
end

fused.set_num_threads(0)
local threads_all = fused.get_num_threads()
bench.header(string.format('sequence training step (forward + backward), float32, T = %d', T))
print(string.format('%-5s %-7s %3s %4s %5s %5s  %9s %9s %11s  %9s %9s', 'cell', 'batch', 'thr',
                    'B', 'I', 'H', 'ms/seq', 'min ms', 'tokens/s', 'limit ms', 'ms/limit'))
local lltm_ms = {}
for _, threads in ipairs({ 1, threads_all }) do
  fused.set_num_threads(threads)
  local gflops = bench.sgemm_gflops()
  print(string.format('# threads %d: 1024^3 sgemm %.1f GFLOP/s', threads, gflops))
  for _, cfg in ipairs(CONFIGS) do
    local B, I, H = cfg[1], cfg[2], cfg[3]
    for _, cell in ipairs(CELLS) do
      local limit = 3 * 2 * T * B * (I + H) * cell[2] * H / gflops * 1e-6
      for _, batch in ipairs({ 'padded', 'ragged' }) do
        local ms, min_ms = time_seq(cell[1], B, I, H, batch == 'ragged' and ragged_lengths(B) or nil)
        if cell[1] == 'LLTM' and batch == 'padded' then
          lltm_ms[table.concat(cfg, ',') .. '/' .. threads] = ms
        end
        print(string.format('%-5s %-7s %3d %4d %5d %5d  %9.2f %9.2f %11.0f  %9.2f %9.2f', cell[1],
                            batch, threads, B, I, H, ms, min_ms, T * B / ms * 1e3, limit,
                            ms / limit))
      end
    end
  end
end

print('\n# nn.LLTM, median: 1 thread / ' .. threads_all .. ' threads')
for _, cfg in ipairs(CONFIGS) do
  local key = table.concat(cfg, ',')
  print(string.format('%4d %5d %5d  %.2fx', cfg[1], cfg[2], cfg[3],
                      lltm_ms[key .. '/1'] / lltm_ms[key .. '/' .. threads_all]))
end
bench.pytorch('--device cpu --threads 1 --seq')
