-- Run by spec/distributed_spec.lua on 2 processes: allreduce and broadcast values.
local helper = require 'spec.helper'
local fused = helper.fused
local dist = fused.distributed

local rank, size = dist.init()
assert(size == 2, 'expected 2 processes, got ' .. size)

for _, dtype in ipairs({ 'float32', 'float64' }) do
  local o = { dtype = dtype }
  -- Rank r holds r + 1 + i at element i: the sum over ranks is 3 + 2i, the mean 1.5 + i.
  local function mine() return fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, o):add_(rank) end
  local expected_sum = fused.tensor({ { 3, 5, 7 }, { 9, 11, 13 } }, o)
  local t = mine()
  assert(rawequal(dist.allreduce(t), t), 'allreduce returns its argument')
  helper.assert_close(t, expected_sum, 0, dtype .. ' sum')
  helper.assert_close(dist.allreduce(mine(), 'mean'), expected_sum / 2, 0, dtype .. ' mean')
  -- A strided view is reduced in place through a contiguous copy.
  local view = mine():t()
  dist.allreduce(view, 'sum')
  helper.assert_close(view, expected_sum:t(), 0, dtype .. ' sum of a transposed view')
  local b = fused.full({ 4 }, rank * 10, o)
  helper.assert_close(dist.broadcast(b, 1), fused.full({ 4 }, 10, o), 0, dtype .. ' broadcast')
end

helper.assert_error(function() dist.allreduce(fused.tensor({ 1, 2 }, { dtype = 'int64' })) end,
                    "distributed.allreduce: argument 't' expected a float32 or float64 tensor, got int64")
helper.assert_error(function() dist.broadcast(fused.ones({ 2 }), 2) end,
                    "distributed.broadcast: argument 'root' expected a rank in 0..1, got 2")
dist.barrier()
print(string.format('rank %d: collectives ok', rank))
