-- The LLTM step on the GPU, fused (nn.LLTMCell) against composed (nn.LLTMCellComposed),
-- float32, with the PyTorch tutorial's protocol: time the forward call, synchronise; time the
-- backward of new_h:sum() + new_c:sum() (grad_h = grad_c = ones), synchronise; many times
-- after a warm-up; median and min µs of each, synchronisation included.
-- Run: make bench, or luajit bench/lltm_cell_cuda.lua (scripts/gpu-check.sh runs it beside
-- python3 bench-shared/pytorch_lltm.py --device cuda, bench-shared/ being a copy of
-- ../shared/bench, in one device call). Without a device it says why and exits 0.
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'

if not fused.cuda.is_available() then
  print('no CUDA device: ' .. fused.cuda.why())
  os.exit(0)
end

local bench = require 'bench.common'

local CONFIGS = { { 16, 32, 128 }, { 64, 256, 512 }, { 256, 1024, 1024 } }
-- The PyTorch script's counts on the GPU.
local function iterations(H)
  if H <= 128 then return 200, 3000 end
  return 30, 1000
end

print('# LLTM step on ' .. fused.cuda.why() .. ', float32, µs, synchronised')
print(string.format('%-17s %4s %5s %5s  %8s %8s  %8s %8s', 'impl', 'B', 'I', 'H', 'fwd med',
                    'fwd min', 'bwd med', 'bwd min'))
for _, cfg in ipairs(CONFIGS) do
  local B, I, H = cfg[1], cfg[2], cfg[3]
  for _, class in ipairs({ 'LLTMCellComposed', 'LLTMCell' }) do
    local warm, iters = iterations(H)
    local r = bench.time_cell_step(class, B, I, H, warm, iters, 'cuda')
    print(string.format('%-17s %4d %5d %5d  %8.1f %8.1f  %8.1f %8.1f', class, B, I, H,
                        r.fwd_med, r.fwd_min, r.bwd_med, r.bwd_min))
  end
end
local stats = fused.cuda.memory_stats()
print(string.format('# allocator: peak %.1f MiB in use, %.1f MiB reserved, %d cudaMalloc calls',
                    stats.peak / 2 ^ 20, stats.reserved / 2 ^ 20, stats.cuda_mallocs))
