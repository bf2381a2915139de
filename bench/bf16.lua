-- compute = 'bfloat16' against float32: tokens/s of a training step (forward from a zero state,
-- backward with d_hs = ones) of nn.LSTM, nn.GRU and nn.LLTM over T = 100 steps, one thread.
-- The two modules share their parameters and input, and run alternately in one process, round
-- after round; each figure is the min over the rounds (the other vCPU's load moves one
-- thread's speed within minutes: only ratios taken side by side mean anything). Then the same
-- under the avx2 path (FUSED_CPU_CAPABILITY=avx2's), where bfloat16 takes its float32
-- fallback. PyTorch's nn.LSTM and nn.GRU, float32 against its CPU autocast, follow each size on
-- the first path (bench/bf16_torch.py, with FUSED_TORCH_PYTHON or python3 where it imports
-- torch), and fused's bf16 against autocast's. Run: make bench-bf16 (taskset -c 0 pins it;
-- ROUNDS=n).
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

local PYTHON = os.getenv('FUSED_TORCH_PYTHON') or 'python3'
-- PyTorch's version, or nil; the check's python has exited (it shares the pinned CPU) on return.
local function torch_version()
  local p = io.popen(PYTHON .. ' -c "import torch; print(torch.__version__)" 2>/dev/null')
  local version = p:read('*l')
  p:close()
  return version
end
local torch = torch_version()

-- PyTorch's rows at one size: {cell = {f32 ms, bf16 ms, covered}}.
local function torch_rows(B, I, H)
  local p = io.popen(string.format('%s bench/bf16_torch.py %d %d %d %d %d', PYTHON, T, B, I, H,
                                   ROUNDS))
  local rows = {}
  for line in p:lines() do
    local cell, f, b, covered = line:match('^(%w+) (%S+) (%S+) (%w+)$')
    if cell then rows[cell] = { tonumber(f), tonumber(b), covered == 'yes' } end
  end
  p:close()
  return rows
end

local function row(path, class, B, I, H, f32_ms, bf16_ms, extra)
  print(string.format('%-6s %-5s %4d %5d %5d  %10.2f %10.2f  %12.0f %12.0f  %5.2fx%s', path,
                      class, B, I, H, f32_ms, bf16_ms, T * B / f32_ms * 1e3,
                      T * B / bf16_ms * 1e3, f32_ms / bf16_ms, extra or ''))
end

fused.set_num_threads(1)
bench.header(string.format("training step, compute = 'bfloat16' against float32, T = %d, "
                           .. "1 thread, min of %d alternating rounds", T, ROUNDS))
print(string.format('%-6s %-5s %4s %5s %5s  %10s %10s  %12s %12s  %6s', 'path', 'cell', 'B',
                    'I', 'H', 'f32 ms', 'bf16 ms', 'f32 tok/s', 'bf16 tok/s', 'ratio'))
print(torch and '# PyTorch ' .. torch .. ' (' .. PYTHON .. ')'
      or '# PyTorch: absent (' .. PYTHON .. ' cannot import torch; FUSED_TORCH_PYTHON names another)')
local paths = { fused.config().cpu_capability }
if paths[1] ~= 'avx2' and pcall(fused.set_cpu_capability, 'avx2') then paths[2] = 'avx2' end
for _, path in ipairs(paths) do
  fused.set_cpu_capability(path)
  print(string.format('# %s path: bf16 products %s; 1024^3 sgemm %.1f GFLOP/s', path,
                      fused.config().bf16, bench.sgemm_gflops()))
  for _, cfg in ipairs(CONFIGS) do
    local B, I, H = cfg[1], cfg[2], cfg[3]
    local bf16_ms = {}
    for _, class in ipairs(CELLS) do
      fused.manual_seed(0)
      local f32 = fused.nn[class](I, H)
      local bf = fused.nn[class](I, H, { compute = 'bfloat16' })
      bf:load_state_dict(f32:state_dict())
      local xs, ones = fused.randn({ T, B, I }), fused.ones({ T, B, H })
      local ms = race({ f32, bf }, xs, ones)
      row(path, class, B, I, H, ms[1], ms[2])
      bf16_ms[class] = ms[2]
    end
    if torch and path == paths[1] then
      local rows = torch_rows(B, I, H)
      for _, class in ipairs(CELLS) do
        local r = rows[class]
        if r then
          row('torch', class, B, I, H, r[1], r[2], string.format('  fused bf16 / autocast %.2fx%s',
              r[2] / bf16_ms[class], r[3] and '' or ' (autocast changed nothing)'))
        end
      end
    end
  end
end
