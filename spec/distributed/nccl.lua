-- Run by spec/distributed_spec.lua on 2 processes, one GPU each: allreduce and broadcast of
-- CUDA tensors through NCCL, and DataParallel on a CUDA model.
local helper = require 'spec.helper'
local fused = helper.fused
local dist = fused.distributed

local rank = dist.init()
for _, dtype in ipairs({ 'float32', 'float64' }) do
  local o = { dtype = dtype, device = 'cuda' }
  local t = fused.tensor({ 1, 2, 3 }, o):add_(rank)
  dist.allreduce(t, 'mean')
  helper.assert_close(t, fused.tensor({ 1.5, 2.5, 3.5 }, { dtype = dtype }), 0, dtype .. ' mean')
  local b = fused.full({ 5 }, rank, o)
  helper.assert_close(dist.broadcast(b, 1), fused.full({ 5 }, 1, { dtype = dtype }), 0, dtype .. ' broadcast')
end
fused.manual_seed(rank)
local model = fused.nn.Linear(3, 2):cuda()
local dp = dist.DataParallel(model, { bucket_bytes = 16 })
local x = fused.full({ 4, 3 }, rank + 1, { device = 'cuda' })
dp:forward(x)
dp:backward(fused.ones({ 4, 2 }, { device = 'cuda' }))
-- d weight = sum over rows of x: 4 (rank + 1) per element, whose mean over ranks is 6.
helper.assert_close(model.grad.weight, fused.full({ 2, 3 }, 6), 1e-6, 'averaged gradWeight')
print(string.format('rank %d: nccl ok', rank))
