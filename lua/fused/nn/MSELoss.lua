-- The mean squared error: mean((input - target)^2) over all elements.
--
--   local criterion = fused.nn.MSELoss()
--   local loss = criterion:forward(input, target)    -- a Lua number
--   local d_input = criterion:backward(input, target) -- 2 (input - target) / numel
--   criterion:backward(input, target, d_loss)          -- times d_loss, the loss's gradient
--
-- Like Torch7's criterions it keeps nothing for backward: backward takes the same arguments
-- (and d_loss, a number, 1 by default, as the class losses).
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local blame = require 'fused.blame'
local inputs = require 'fused.nn.inputs'

local MSELoss = Module:extend('MSELoss')
MSELoss.criterion = true -- keeps nothing: forward and backward take (input, target)

local function expect_pair(fn, input, target)
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
  inputs.no_more('MSELoss:forward', 2, ...)
  expect_pair('MSELoss:forward', input, target)
  -- In the input's dtype, as (d * d):sum(): a float32 loss overflows to inf where the
  -- training loop stops on it.
  local b = self.buffers
  b.squares = ops.sub(input, target, { out = self:buffer('squares', input) })
  b.squares:mul_(b.squares)
  b.sum = ops.sum(b.squares:view(-1), 1, { out = self:buffer('sum', input) })
  return b.sum:item() / input:numel()
end

function MSELoss:backward(input, target, d_loss, ...)
  local fn = 'MSELoss:backward'
  inputs.no_more(fn, 3, ...)
  expect_pair(fn, input, target)
  inputs.d_loss(d_loss, 'mean', nil, input, fn)
  self.buffers.gradInput = ops.sub(input, target, { out = self:buffer('gradInput', input) })
  return self.buffers.gradInput:mul_(2 * (d_loss or 1) / input:numel())
end

-- The gradient at target, from the input's: negated (a recorded forward's, autograd/modules.lua).
function MSELoss.target_gradient(d_input) return ops.neg(d_input) end

return MSELoss
