-- compute = 'bfloat16' against float32: tokens/s of a training step (forward from a zero state,
-- backward with d_hs = ones) of nn.LSTM, nn.GRU and nn.LLTM over T = 100 steps, one thread.
-- The two modules share their parameters and input, and run alternately in one process, round
-- after round; each figure is the min over the rounds (the other vCPU's load moves one
-- thread's speed within minutes: only ratios taken side by side mean anything). Then the same
-- under the avx2 path (FUSED_CPU_CAPABILITY=avx2's), where bfloat16 takes its float32
-- fallback. Run: make bench-bf16 (taskset -c 0 pins it; ROUNDS=n).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'

local T, ROUNDS = 100, tonumber(os.getenv('ROUNDS') or '') or 5
local CONFIGS = { { 16, 32, 128 }, { 64, 256, 512 } }
local CELLS = { 'LSTM', 'GRU', 'LLTM' }

local function step(m, xs, ones)
  if m.has_c then m:forward(xs, nil, nil) else m:forward(xs, nil) end
  m:backward(ones)
end

-- The min ms of a step of each module, alternating.
local function race(mods, xs, ones)
  local iters = xs:size(2) * mods[1].hidden_size < 10000 and 10 or 1
  local best = {}
  for i = 1, #mods do step(mods[i], xs, ones); best[i] = math.huge end
  for _ = 1, ROUNDS do
    for i = 1, #mods do
      local t0 = bench.now_us()
      for _ = 1, iters do step(mods[i], xs, ones) end
      best[i] = math.min(best[i], (bench.now_us() - t0) * 1e-3 / iters)
    end
  end
  return best
end

fused.set_num_threads(1)
bench.header(string.format("training step, compute = 'bfloat16' against float32, T = %d, "
                           .. "1 thread, min of %d alternating rounds", T, ROUNDS))
print(string.format('%-6s %-5s %4s %5s %5s  %10s %10s  %12s %12s  %6s', 'path', 'cell', 'B', 'I',
                    'H', 'f32 ms', 'bf16 ms', 'f32 tok/s', 'bf16 tok/s', 'ratio'))
local paths = { fused.config().cpu_capability }
if paths[1] ~= 'avx2' and pcall(fused.set_cpu_capability, 'avx2') then paths[2] = 'avx2' end
for _, path in ipairs(paths) do
  fused.set_cpu_capability(path)
  print(string.format('# %s path: bf16 products %s; 1024^3 sgemm %.1f GFLOP/s', path,
                      fused.config().bf16, bench.sgemm_gflops()))
  for _, cfg in ipairs(CONFIGS) do
    local B, I, H = cfg[1], cfg[2], cfg[3]
    for _, class in ipairs(CELLS) do
      fused.manual_seed(0)
      local f32 = fused.nn[class](I, H)
      local bf = fused.nn[class](I, H, { compute = 'bfloat16' })
      bf:load_state_dict(f32:state_dict())
      local xs, ones = fused.randn({ T, B, I }), fused.ones({ T, B, H })
      local ms = race({ f32, bf }, xs, ones)
      print(string.format('%-6s %-5s %4d %5d %5d  %10.2f %10.2f  %12.0f %12.0f  %5.2fx', path,
                          class, B, I, H, ms[1], ms[2], T * B / ms[1] * 1e3, T * B / ms[2] * 1e3,
                          ms[1] / ms[2]))
    end
  end
end
