-- Inverted dropout, as torch.nn.Dropout: in training each element is zeroed with probability
-- p and the others are scaled by 1/(1-p), so that evaluation needs no scaling; after
-- :eval() forward returns its input as it is (and backward d_output), until :train().
--
--   local drop = fused.nn.Dropout(0.5)     -- p defaults to 0.5
--   local y = drop:forward(x)              -- a new mask from fused's generator (manual_seed)
--   local d_x = drop:backward(d_y)         -- d_y ⊙ the same mask
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local inputs = require 'fused.nn.inputs'

local Dropout = Module:extend('Dropout')

function Dropout:__init(p, ...)
  inputs.no_more('Dropout', 1, ...)
  if p == nil then p = 0.5 end
  if type(p) ~= 'number' or not (p >= 0 and p <= 1) then
    local got = type(p) == 'table' and 'a table (write Dropout(0.2), not Dropout({p = 0.2}))'
      or type(p) == 'string' and string.format('the string %q', p) or tostring(p)
    error(string.format("Dropout: argument 'p' expected a probability in [0, 1], got %s", got), 3)
  end
  self.p = p
end

function Dropout:extra_repr() return string.format('(p=%g)', self.p) end

function Dropout:forward(x, ...)
  inputs.no_more('Dropout:forward', 1, ...)
  inputs.floating(x, 'Dropout:forward', 'input')
  self.saved = { shape = x:shape() }
  if not self.training or self.p == 0 then return x end
  -- The mask is 1[u > p] / (1-p) for u uniform in [0, 1).
  local mask = self:buffer_shaped('mask', x:shape(), x):uniform_()
  self.buffers.keep = ops.gt(mask, self.p, { out = self.buffers.keep })
  mask:copy_(self.buffers.keep)
  if self.p < 1 then mask:mul_(1 / (1 - self.p)) end
  self.saved.mask = mask
  self.buffers.output = ops.mul(x, mask, { out = self:buffer('output', x) })
  return self.buffers.output
end

function Dropout:backward(d_y)
  local s = self:expect_saved()
  self:expect_d_output(d_y, s.shape, 'Dropout:backward', s.mask)
  if not s.mask then return d_y end
  self.buffers.gradInput = ops.mul(d_y, s.mask, { out = self:buffer('gradInput', d_y) })
  return self.buffers.gradInput
end

return Dropout
