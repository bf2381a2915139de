-- The mean squared error: mean((input - target)^2) over all elements.
--
--   local criterion = fused.nn.MSELoss()
--   local loss = criterion:forward(input, target)    -- a Lua number
--   local d_input = criterion:backward(input, target) -- 2 (input - target) / numel
--
-- Like Torch7's criterions it keeps nothing for backward: backward takes the same arguments.
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local argcheck = require 'fused.check'

local MSELoss = Module:extend('MSELoss')
MSELoss.criterion = true -- keeps nothing: forward and backward take (input, target)

local function expect_pair(input, target, fn)
  argcheck.expect(input, fn, 'input')
  argcheck.expect(target, fn, 'target')
  local a, b = table.concat(input:shape(), ', '), table.concat(target:shape(), ', ')
  if a ~= b then
    error(string.format("%s: argument 'target' expected shape [%s] (as input), got [%s]", fn, a, b), 3)
  end
  if input.dtype ~= target.dtype or input.device ~= target.device then
    error(string.format("%s: argument 'target' expected %s on %s (as input), got %s on %s", fn,
                        input.dtype, input.device, target.dtype, target.device), 3)
  end
end

function MSELoss:forward(input, target)
  expect_pair(input, target, 'MSELoss:forward')
  -- In the input's dtype, as (d * d):sum(): a float32 loss overflows to inf where the
  -- training loop stops on it.
  local b = self.buffers
  b.squares = ops.sub(input, target, { out = self:buffer('squares', input) })
  b.squares:mul_(b.squares)
  b.sum = ops.sum(b.squares:view(-1), 1, { out = self:buffer('sum', input) })
  return b.sum:item() / input:numel()
end

function MSELoss:backward(input, target)
  expect_pair(input, target, 'MSELoss:backward')
  self.buffers.gradInput = ops.sub(input, target, { out = self:buffer('gradInput', input) })
  return self.buffers.gradInput:mul_(2 / input:numel())
end

return MSELoss
