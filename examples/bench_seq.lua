-- Training-step throughput of the LLTM over a sequence, float32, T = 100: nn.LLTM (fused over
-- time) against nn.Recurrent(nn.LLTMCell) and nn.Recurrent(nn.LLTMCellComposed), one thread
-- and all threads. A step is what ../shared/bench/pytorch_lltm.py --seq times: forward from a
-- zero state, then backward of the sum of every h_t (d_hs = ones); we compute d_xs too.
-- tokens/s = T·B per second of the median step (min beside it). The compute limit is the
-- step's GEMM flops (3 · T · 2·B·(H+I)·3H) at the rate of a 1024x1024x1024 sgemm measured in
-- this run.
-- Run: make bench-seq (PyTorch's side: /usr/bin/python3 ../shared/bench/pytorch_lltm.py
-- --device cpu --threads 1 --seq, in the same session).
local fused = require 'fused'

local bench = require 'examples.bench_common'
local function now_ms() return bench.now_us() * 1e-3 end

local T = 100
local CONFIGS = { { 16, 32, 128 }, { 64, 256, 512 } }
local KINDS = {
  { 'LLTM', function(I, H) return fused.nn.LLTM(I, H) end },
  { 'Recurrent(LLTMCell)', function(I, H) return fused.nn.Recurrent(fused.nn.LLTMCell(I, H)) end },
  { 'Recurrent(Composed)', function(I, H)
      return fused.nn.Recurrent(fused.nn.LLTMCellComposed(I, H)) end },
}

local function time_seq(make, B, I, H)
  fused.manual_seed(0)
  local rnn = make(I, H)
  local xs, ones = fused.randn({ T, B, I }), fused.ones({ T, B, H })
  local warm, iters = 2, B * H < 10000 and 20 or 3
  local samples = {}
  collectgarbage()
  for i = 1, warm + iters do
    local t0 = now_ms()
    rnn:forward(xs)
    rnn:backward(ones)
    if i > warm then samples[#samples + 1] = now_ms() - t0 end
  end
  return bench.median_min(samples)
end

fused.set_num_threads(0)
local threads_all = fused.get_num_threads()
bench.header(string.format('LLTM sequence training step (forward + backward), float32, T = %d', T))
print(string.format('%-20s %3s %4s %5s %5s  %9s %9s %11s  %9s %11s', 'impl', 'thr', 'B', 'I',
                    'H', 'ms/seq', 'min ms', 'tokens/s', 'limit ms', 'ms/limit'))
local lltm_ms = {}
for _, threads in ipairs({ 1, threads_all }) do
  fused.set_num_threads(threads)
  local gflops = bench.sgemm_gflops()
  print(string.format('# threads %d: 1024^3 sgemm %.1f GFLOP/s', threads, gflops))
  for _, cfg in ipairs(CONFIGS) do
    local B, I, H = cfg[1], cfg[2], cfg[3]
    local limit = 3 * T * 2 * B * (H + I) * 3 * H / gflops * 1e-6
    for _, kind in ipairs(KINDS) do
      local ms, min_ms = time_seq(kind[2], B, I, H)
      if kind[1] == 'LLTM' then lltm_ms[table.concat(cfg, ',') .. '/' .. threads] = ms end
      print(string.format('%-20s %3d %4d %5d %5d  %9.2f %9.2f %11.0f  %9.2f %11.2f', kind[1],
                          threads, B, I, H, ms, min_ms, T * B / ms * 1e3, limit, ms / limit))
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
