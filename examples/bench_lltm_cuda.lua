-- The LLTM step on the GPU, fused (nn.LLTMCell) against composed (nn.LLTMCellComposed),
-- float32, with the PyTorch tutorial's protocol: time the forward call, synchronise; time the
-- backward of new_h:sum() + new_c:sum() (grad_h = grad_c = ones), synchronise; many times
-- after a warm-up; median and min µs of each, synchronisation included.
-- Run: make bench, or luajit examples/bench_lltm_cuda.lua (scripts/gpu-check.sh runs it beside
-- python3 bench/pytorch_lltm.py --device cuda, in one device call). Without a device it says
-- why and exits 0.
local fused = require 'fused'

if not fused.cuda.is_available() then
  print('no CUDA device: ' .. fused.cuda.why())
  os.exit(0)
end

local bench = require 'examples.bench_common'
local now_us = bench.now_us

local CONFIGS = { { 16, 32, 128 }, { 64, 256, 512 }, { 256, 1024, 1024 } }
-- The PyTorch script's counts on the GPU.
local function iterations(H)
  if H <= 128 then return 200, 3000 end
  return 30, 1000
end

local function time_step(class, B, I, H)
  local warm, iters = iterations(H)
  fused.manual_seed(0)
  local o = { device = 'cuda' }
  local cell = fused.nn[class](I, H):cuda()
  local x, h, c = fused.randn({ B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
  local ones = fused.ones({ B, H }, o)
  local fw, bw = {}, {}
  collectgarbage()
  fused.cuda.synchronize()
  for i = 1, warm + iters do
    local t0 = now_us()
    cell:forward(x, h, c)
    fused.cuda.synchronize()
    local t1 = now_us()
    cell:backward(ones, ones)
    fused.cuda.synchronize()
    local t2 = now_us()
    if i > warm then fw[#fw + 1], bw[#bw + 1] = t1 - t0, t2 - t1 end
  end
  local r = {}
  r.fwd_med, r.fwd_min = bench.median_min(fw)
  r.bwd_med, r.bwd_min = bench.median_min(bw)
  return r
end

print('# LLTM step on ' .. fused.cuda.why() .. ', float32, µs, synchronised')
print(string.format('%-17s %4s %5s %5s  %8s %8s  %8s %8s', 'impl', 'B', 'I', 'H', 'fwd med',
                    'fwd min', 'bwd med', 'bwd min'))
for _, cfg in ipairs(CONFIGS) do
  local B, I, H = cfg[1], cfg[2], cfg[3]
  for _, class in ipairs({ 'LLTMCellComposed', 'LLTMCell' }) do
    local r = time_step(class, B, I, H)
    print(string.format('%-17s %4d %5d %5d  %8.1f %8.1f  %8.1f %8.1f', class, B, I, H,
                        r.fwd_med, r.fwd_min, r.bwd_med, r.bwd_min))
  end
end
local stats = fused.cuda.memory_stats()
print(string.format('# allocator: peak %.1f MiB in use, %.1f MiB reserved, %d cudaMalloc calls',
                    stats.peak / 2 ^ 20, stats.reserved / 2 ^ 20, stats.cuda_mallocs))
