-- nn.BatchNormalization(nOutput[, eps[, momentum[, affine]]]) over a batch of rows (N x
-- nOutput) and nn.SpatialBatchNormalization over a batch of planes (N x nOutput x H x W), as
-- Torch7's BatchNormalization.lua: in training each feature is normalised by the batch's mean
-- and (biased) variance, and running_mean, running_var (unbiased) move by momentum (0.1); in
-- evaluation the running ones are used (an input without its batch dim too). y = x^ weight +
-- bias when affine (weight from U(0, 1), bias 0); eps 1e-5.
local fused = require 'fused'
local class = require 'fused.th.class'
local util = require 'fused.th.nn.util'
local nn = require 'fused.th.nn.namespace'

local function define(name, nDim)
  local BN = class.class('nn.' .. name, 'nn.Module', nn)
  local fn = 'nn.' .. name

  function BN:__init(nOutput, eps, momentum, affine)
    nn.Module.__init(self)
    self.affine = affine ~= false
    self.eps, self.momentum, self.nDim = eps or 1e-5, momentum or 0.1, nDim
    local opts = util.options()
    self.running_mean, self.running_var = fused.zeros({ nOutput }, opts), fused.ones({ nOutput }, opts)
    if self.affine then
      self.weight, self.bias = fused.empty({ nOutput }, opts), fused.empty({ nOutput }, opts)
      self.gradWeight, self.gradBias = fused.zeros({ nOutput }, opts), fused.zeros({ nOutput }, opts)
    end
    self:reset()
  end

  function BN:reset()
    if self.weight then self.weight:uniform_(0, 1) end
    if self.bias then self.bias:zero_() end
    self.running_mean:zero_()
    self.running_var:fill_(1)
  end

  -- The input as rows of features (M x C), and how to give a result of that shape the input's.
  local function rows(self, input)
    local n, C = input:dim(), self.running_mean:numel()
    if n ~= nDim and not (n == nDim - 1 and not self.train) then
      error(string.format('%s: input expected %d dims (%d without the batch in evaluation), got %d', fn, nDim, nDim - 1, n), 4)
    end
    local x = n == nDim - 1 and input:unsqueeze(1) or input
    if x:size(2) ~= C then error(string.format('%s: input expected %d features (dim 2), got %d', fn, C, x:size(2)), 4) end
    if nDim == 2 then return x, function(y) return y:view(input:shape()) end end
    local N, _, H, W = unpack(x:shape())
    local x2 = x:permute(1, 3, 4, 2):contiguous():view(-1, C)
    return x2, function(y) return y:view(N, H, W, C):permute(1, 4, 2, 3):contiguous():view(input:shape()) end
  end

  local function row(t) return t:view(1, -1) end

  function BN:updateOutput(input)
    local x, back = rows(self, input)
    local mean, invstd
    if self.train then
      local M = x:size(1)
      mean = fused.mean(x, 1)
      local centered = fused.sub(x, mean)
      local var = fused.mean(fused.mul(centered, centered), 1)
      invstd = fused.add(var, self.eps):pow_(-0.5)
      self.running_mean:mul_(1 - self.momentum):add_(mean:view(-1), { alpha = self.momentum })
      self.running_var:mul_(1 - self.momentum):add_(var:view(-1), { alpha = self.momentum * M / math.max(M - 1, 1) })
      self.save_mean, self.save_std = mean:view(-1), invstd:view(-1)
    else
      mean, invstd = row(self.running_mean), row(fused.add(self.running_var, self.eps):pow_(-0.5))
    end
    local y = fused.mul(fused.sub(x, mean), invstd)
    if self.affine then y = fused.add(fused.mul(y, row(self.weight)), row(self.bias)) end
    self.output = back(y)
    return self.output
  end

  -- x^, dy = gradOutput, and the rows' way back, from the call's statistics.
  local function pieces(self, input, gradOutput)
    local x, back = rows(self, input)
    local g = rows(self, gradOutput)
    local mean = self.train and row(self.save_mean) or row(self.running_mean)
    local invstd = self.train and row(self.save_std) or row(fused.add(self.running_var, self.eps):pow_(-0.5))
    return fused.mul(fused.sub(x, mean), invstd), g, invstd, back
  end

  function BN:updateGradInput(input, gradOutput)
    local xhat, g, invstd, back = pieces(self, input, gradOutput)
    local dxhat = self.affine and fused.mul(g, row(self.weight)) or g
    local gi
    if self.train then
      local M = xhat:size(1)
      local sum_d = fused.sum(dxhat, 1)
      local sum_dx = fused.sum(fused.mul(dxhat, xhat), 1)
      gi = fused.mul(dxhat, M):sub_(sum_d):sub_(fused.mul(xhat, sum_dx)):mul_(fused.div(invstd, M))
    else
      gi = fused.mul(dxhat, invstd)
    end
    self.gradInput = back(gi)
    return self.gradInput
  end

  function BN:accGradParameters(input, gradOutput, scale)
    if not self.affine then return end
    local xhat, g = pieces(self, input, gradOutput)
    self.gradWeight:add_(fused.sum(fused.mul(g, xhat), 1):view(-1), { alpha = scale or 1 })
    self.gradBias:add_(fused.sum(g, 1):view(-1), { alpha = scale or 1 })
  end

  function BN:__tostring__()
    return string.format('%s (%dD) (%d)', fn, nDim, self.running_mean:numel())
  end
end

define('BatchNormalization', 2)
define('SpatialBatchNormalization', 4)
