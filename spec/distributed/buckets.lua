-- Run by spec/distributed_spec.lua on 2 processes: DataParallel's gradients, in several buckets
-- (one parameter larger than a bucket), equal the gradients of the whole batch on one process.
local helper = require 'spec.helper'
local fused = helper.fused
local Module = require 'fused.nn.Module'
local dist = fused.distributed

local rank = dist.init()
local o = { dtype = 'float64' }

-- Three Linear layers; backward runs them in reverse order, as a container does.
local Stack = Module:extend('Stack')
function Stack:__init()
  self.l1, self.l2, self.l3 = fused.nn.Linear(4, 8, o), fused.nn.Linear(8, 16, o), fused.nn.Linear(16, 2, o)
end
function Stack:forward(x) return self.l3:forward(self.l2:forward(self.l1:forward(x))) end
function Stack:backward(d)
  local d_l2 = self.l2:backward(self.l3:backward(d))
  if self.probe then self.started_before_l1 = self.started_before_l1 or self.probe() end
  return self.l1:backward(d_l2)
end

fused.manual_seed(100 + rank) -- different on each rank until DataParallel broadcasts rank 0's
local model = Stack()
-- 400 bytes: {l3.bias 16 B, l3.weight 256, l2.bias 128}, {l2.weight 1024}, {l1.bias, l1.weight}
local dp = dist.DataParallel(model, { bucket_bytes = 400 })
local layout = {}
for i, b in ipairs(dp.buckets) do layout[i] = table.concat(b.names, ' ') end
assert(table.concat(layout, ' | ') == 'l3.bias l3.weight l2.bias | l2.weight | l1.bias l1.weight',
       'bucket layout: ' .. table.concat(layout, ' | '))
-- Which buckets are in flight when l1's backward begins: the two whose modules are done.
model.probe = function() return { dp.buckets[1].request ~= nil, dp.buckets[2].request ~= nil,
                                  dp.buckets[3].request ~= nil } end

local reference = Stack()
reference:load_state_dict(model:state_dict())
local criterion = fused.nn.MSELoss()
for step = 1, 2 do
  fused.manual_seed(step) -- the same global batch on both ranks
  local x, y = fused.randn({ 8, 4 }, o), fused.randn({ 8, 2 }, o)
  reference:zeroGradParameters()
  local pred = reference:forward(x)
  criterion:forward(pred, y)
  reference:backward(criterion:backward(pred, y))

  model:zeroGradParameters()
  local mine_x, mine_y = x:narrow(1, 4 * rank + 1, 4):contiguous(), y:narrow(1, 4 * rank + 1, 4):contiguous()
  local mine_pred = dp:forward(mine_x)
  criterion:forward(mine_pred, mine_y)
  dp:backward(criterion:backward(mine_pred, mine_y))
  local _, expected = reference:parameters()
  for i, g in ipairs(select(2, model:parameters())) do
    helper.assert_close(g, expected[i], 1e-12, 'step ' .. step .. ' gradient ' .. i)
  end
end
local started = model.started_before_l1
assert(started[1] and started[2] and not started[3],
       'buckets started before l1 backward: ' .. tostring(started[1]) .. ' ' .. tostring(started[2])
       .. ' ' .. tostring(started[3]))

-- A module whose backward runs twice in a step would send half-made gradients.
model:forward(fused.randn({ 4, 4 }, o))
model.l3:backward(fused.ones({ 4, 2 }, o))
helper.assert_error(function() model.l3:backward(fused.ones({ 4, 2 }, o)) end,
                    "distributed.DataParallel: the backward of 'l3' ran twice before synchronize()")
print(string.format('rank %d: buckets ok', rank))
