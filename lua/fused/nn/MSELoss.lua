-- The mean squared error: mean((input - target)^2) over all elements.
--
--   local criterion = fused.nn.MSELoss()
--   local loss = criterion:forward(input, target)    -- a Lua number
--   local d_input = criterion:backward(input, target) -- 2 (input - target) / numel
--
-- Like Torch7's criterions it keeps nothing for backward: backward takes the same arguments.
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local blame = require 'fused.blame'
local inputs = require 'fused.nn.inputs'

local MSELoss = Module:extend('MSELoss')
MSELoss.criterion = true -- keeps nothing: forward and backward take (input, target)

local function expect_pair(fn, input, target, ...)
  inputs.no_more(fn, 2, ...)
  inputs.floating(input, fn, 'input')
  inputs.floating(target, fn, 'target')
  local a, b = inputs.shape_text(input), inputs.shape_text(target)
  if a ~= b then
    blame(string.format("%s: argument 'target' expected shape %s (as input), got %s", fn, a, b))
  end
  if input.dtype ~= target.dtype or input.device ~= target.device then
    blame(string.format("%s: argument 'target' expected %s on %s (as input), got %s on %s", fn,
                        input.dtype, input.device, target.dtype, target.device))
  end
end

function MSELoss:forward(input, target, ...)
  expect_pair('MSELoss:forward', input, target, ...)
  -- In the input's dtype, as (d * d):sum(): a float32 loss overflows to inf where the
  -- training loop stops on it.
  local b = self.buffers
  b.squares = ops.sub(input, target, { out = self:buffer('squares', input) })
  b.squares:mul_(b.squares)
  b.sum = ops.sum(b.squares:view(-1), 1, { out = self:buffer('sum', input) })
  return b.sum:item() / input:numel()
end

function MSELoss:backward(input, target, ...)
  expect_pair('MSELoss:backward', input, target, ...)
  self.buffers.gradInput = ops.sub(input, target, { out = self:buffer('gradInput', input) })
  return self.buffers.gradInput:mul_(2 / input:numel())
end

return MSELoss
