-- Layer normalisation over the last dim, as torch.nn.LayerNorm with one normalized size:
-- y = (x - mean) / sqrt(var + eps) ⊙ weight + bias, mean and (biased) var over each row.
--
--   local norm = fused.nn.LayerNorm(normalized_shape, {eps = 1e-5, elementwise_affine = true,
--                                                      dtype =, device =})
--   local y = norm:forward(x)          -- x … × normalized_shape, y the same shape
--   local d_x = norm:backward(d_y)     -- adds into grad.weight and grad.bias
--
-- weight starts at ones and bias at zeros; without elementwise_affine there are neither. On the
-- R rows of N: a row's mean and 1/sqrt(var + eps) are R × 1 and broadcast over its N columns,
-- weight and bias over the rows. Kept for backward: x̂ (R × N) and 1/sqrt(var + eps).
local blame = require 'fused.blame'
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local options = require 'fused.options'
local blame = require 'fused.blame'
local inputs = require 'fused.nn.inputs'

local LayerNorm = Module:extend('LayerNorm')

function LayerNorm:__init(normalized_shape, opts, ...)
  inputs.no_more('LayerNorm', 2, ...)
  opts = options.check(opts, 'LayerNorm', { 'eps', 'elementwise_affine', 'dtype', 'device' })
  if type(normalized_shape) == 'table' and #normalized_shape == 1 then
    normalized_shape = normalized_shape[1]
  end
  self:check_size(normalized_shape, 'normalized_shape')
  local eps = opts.eps == nil and 1e-5 or opts.eps
  if type(eps) ~= 'number' or not (eps >= 0) then
    error("LayerNorm: option 'eps' expected a number >= 0, got " .. tostring(eps), 3)
  end
  if opts.elementwise_affine ~= nil and type(opts.elementwise_affine) ~= 'boolean' then
    error("LayerNorm: option 'elementwise_affine' expected a boolean, got "
          .. type(opts.elementwise_affine), 3)
  end
  self.normalized_shape, self.eps = normalized_shape, eps
  self.elementwise_affine = opts.elementwise_affine ~= false
  local topts = self:tensor_options({ dtype = opts.dtype, device = opts.device })
  if self.elementwise_affine then
    self:parameter('weight', { normalized_shape }, topts):fill_(1)
    self:parameter('bias', { normalized_shape }, topts)
  end
end

function LayerNorm:extra_repr()
  return string.format('(%d, eps=%g, elementwise_affine=%s)', self.normalized_shape, self.eps,
                       tostring(self.elementwise_affine))
end

function LayerNorm:forward(x, ...)
  local N, fn = self.normalized_shape, 'LayerNorm:forward'
  inputs.no_more(fn, 1, ...)
  inputs.floating(x, fn, 'input', self.weight)
  if x.ndim == 0 or x:size(x.ndim) ~= N then
    blame(string.format("%s: argument 'input' expected a last dim of %d (normalized_shape), got "
                        .. 'shape %s', fn, N, inputs.shape_text(x)))
  end
  local b = self.buffers
  local rows = x:contiguous():view(-1, N)
  b.mean = ops.mean(rows, 2, { out = self:buffer('mean', x) })
  b.xhat = ops.sub(rows, b.mean, { out = self:buffer('xhat', x) })
  b.scratch = ops.mul(b.xhat, b.xhat, { out = self:buffer('scratch', x) })
  b.rstd = ops.mean(b.scratch, 2, { out = self:buffer('rstd', x) }):add_(self.eps):pow_(-0.5)
  b.xhat:mul_(b.rstd)
  self.saved = { shape = x:shape() }
  if not self.elementwise_affine then return b.xhat:view(self.saved.shape) end
  b.output = ops.mul(b.xhat, self.weight, { out = self:buffer('output', x) }):add_(self.bias)
  return b.output:view(self.saved.shape)
end

-- With g = d_y ⊙ weight: d_x = rstd ⊙ (g - mean(g) - x̂ ⊙ mean(g ⊙ x̂)), means over each row.
function LayerNorm:backward(d_y)
  local s, b, N = self:expect_saved(), self.buffers, self.normalized_shape
  self:expect_d_output(d_y, s.shape, 'LayerNorm:backward')
  local g = d_y:contiguous():view(-1, N)
  if self.elementwise_affine then
    b.column_sum = ops.sum(g, 1, { out = self:buffer('column_sum', d_y) })
    self.grad.bias:add_(b.column_sum:view(N))
    b.scratch = ops.mul(g, b.xhat, { out = self:buffer('scratch', d_y) })
    self.grad.weight:add_(ops.sum(b.scratch, 1, { out = b.column_sum }):view(N))
    b.g = ops.mul(g, self.weight, { out = self:buffer('g', d_y) })
    g = b.g
  end
  b.mean = ops.mean(g, 2, { out = self:buffer('mean', d_y) })
  b.gradInput = ops.sub(g, b.mean, { out = self:buffer('gradInput', d_y) })
  b.scratch = ops.mul(g, b.xhat, { out = self:buffer('scratch', d_y) })
  b.mean = ops.mean(b.scratch, 2, { out = b.mean })
  b.gradInput:sub_(ops.mul(b.xhat, b.mean, { out = b.scratch })):mul_(b.rstd)
  return b.gradInput:view(s.shape)
end

return LayerNorm
