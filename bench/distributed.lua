-- Data-parallel training steps/s on this machine, and how much of the gradient allreduce runs
-- hidden behind backward. Run once alone and once under mpirun (make bench-dist does both);
-- rank 0 prints one line per bucket size. The model: two LLTM layers (I -> H, H -> H) over
-- T = 100 and a Linear head on the last h, MSE on a global batch B split over the processes,
-- one thread each. A step is forward, backward and DataParallel:synchronize(); "wait" is the
-- time in synchronize(): the allreduce that backward did not hide. With 25 MB buckets all the
-- gradients (11 MB) share one bucket, started when backward ends, so its wait is the whole
-- allreduce; with 4 MB buckets the second layer's is started while the first layer's backward
-- runs. overlap = 1 - wait(4 MB) / wait(25 MB).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'
local Module = require 'fused.nn.Module'
local dist = fused.distributed

local B, I, H, T = 64, 256, 512, 100
local WARM, STEPS = 1, 4

local Stack = Module:extend('Stack')
function Stack:__init()
  self.layer1, self.layer2, self.head = fused.nn.LLTM(I, H), fused.nn.LLTM(H, H), fused.nn.Linear(H, 1)
  self.criterion = fused.nn.MSELoss()
end

function Stack:loss(xs, ys)
  local hs1 = self.layer1:forward(xs)
  local hs2, h_T = self.layer2:forward(hs1)
  local pred = self.head:forward(h_T)
  local loss = self.criterion:forward(pred, ys)
  self.zeros = self.zeros or fused.zeros(hs2:shape())
  local d_hs1 = self.layer2:backward(self.zeros, self.head:backward(self.criterion:backward(pred, ys)))
  self.layer1:backward(d_hs1)
  return loss
end

local rank, size = dist.init()
fused.set_num_threads(1)
local share = B / size
fused.manual_seed(1)
local xs = fused.randn({ T, B, I }):narrow(2, rank * share + 1, share):contiguous()
local ys = fused.rand({ B, 1 }):narrow(1, rank * share + 1, share):contiguous()

local results = {}
for _, mb in ipairs({ 25, 4 }) do
  fused.manual_seed(2)
  local model = Stack()
  local dp = dist.DataParallel(model, { bucket_bytes = mb * 2 ^ 20 })
  local steps, waits = {}, {}
  for i = 1, WARM + STEPS do
    dist.barrier()
    local t0 = bench.now_us()
    model:zeroGradParameters()
    model:loss(xs, ys)
    local t1 = bench.now_us()
    dp:synchronize()
    local t2 = bench.now_us()
    if i > WARM then steps[#steps + 1], waits[#waits + 1] = (t2 - t0) * 1e-3, (t2 - t1) * 1e-3 end
  end
  local step_ms = bench.median_min(steps)
  local wait_ms = bench.median_min(waits)
  results[mb] = wait_ms
  if rank == 0 then
    print(string.format('processes %d  buckets %2d MB (%d)  %6.3f steps/s  %8.1f ms/step  wait %7.1f ms%s',
                        size, mb, #dp.buckets, 1e3 / step_ms, step_ms, wait_ms,
                        size > 1 and mb == 4 and string.format('  overlap %.0f%%',
                          100 * (1 - wait_ms / results[25])) or ''))
  end
end
