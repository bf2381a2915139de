-- heads = NH against the dense recurrent matrix: tokens/s of a training step (forward from a
-- zero state, backward with d_hs = ones) of nn.LSTM and nn.GRU over T = 100 steps, one thread,
-- float32 and compute = 'bfloat16', NH = 4 (and 1, the dense layer, and 8) at the same
-- (B, I, H). The modules share their input and run alternately in one process, round after
-- round; each figure is the min over the rounds (the other vCPU's load moves one thread's
-- speed within minutes: only ratios taken side by side mean anything). The issue's target: a
-- 4-head LSTM of H = 512 at B = 64 at least 1.5x the dense one's tokens/s. Run: make
-- bench-heads (taskset -c 0 pins it; ROUNDS=n).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'

local T, ROUNDS = 100, tonumber(os.getenv('ROUNDS') or '') or 5
local CONFIGS = { { 64, 256, 512 }, { 64, 512, 512 }, { 16, 128, 256 } }
local HEADS = { 1, 4, 8 }

local function step(m, xs, ones)
  if m.has_c then m:forward(xs, nil, nil) else m:forward(xs, nil) end
  m:backward(ones)
end

-- The min ms of a step of each module, alternating.
local function race(mods, xs, ones)
  local best = {}
  for i = 1, #mods do step(mods[i], xs, ones); best[i] = math.huge end
  for _ = 1, ROUNDS do
    for i = 1, #mods do
      local t0 = bench.now_us()
      step(mods[i], xs, ones)
      best[i] = math.min(best[i], (bench.now_us() - t0) * 1e-3)
    end
  end
  return best
end

fused.set_num_threads(1)
bench.header(string.format('training step, heads against the dense recurrent matrix, T = %d, '
                           .. '1 thread, min of %d alternating rounds', T, ROUNDS))
print(string.format('# %s path: bf16 products %s; 1024^3 sgemm %.1f GFLOP/s',
                    fused.config().cpu_capability, fused.config().bf16, bench.sgemm_gflops()))
print(string.format('%-5s %-8s %4s %5s %5s %5s  %10s %12s  %14s', 'cell', 'compute', 'B', 'I',
                    'H', 'heads', 'ms', 'tokens/s', 'vs heads = 1'))
for _, cfg in ipairs(CONFIGS) do
  local B, I, H = cfg[1], cfg[2], cfg[3]
  for _, class in ipairs({ 'LSTM', 'GRU' }) do
    for _, compute in ipairs({ false, 'bfloat16' }) do
      local mods = {}
      for i, heads in ipairs(HEADS) do
        fused.manual_seed(0)
        mods[i] = fused.nn[class](I, H, { heads = heads, compute = compute or nil })
      end
      local xs, ones = fused.randn({ T, B, I }), fused.ones({ T, B, H })
      local ms = race(mods, xs, ones)
      for i, heads in ipairs(HEADS) do
        print(string.format('%-5s %-8s %4d %5d %5d %5d  %10.2f %12.0f  %13.2fx', class,
                            compute or 'float32', B, I, H, heads, ms[i], T * B / ms[i] * 1e3,
                            ms[1] / ms[i]))
      end
      io.stdout:flush()
    end
  end
end
