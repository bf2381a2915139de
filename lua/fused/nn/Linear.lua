-- y = x·weightᵀ + bias, on B × in or T × B × in inputs (the leading dims are flattened into
-- one GEMM).
--
--   local linear = fused.nn.Linear(in_features, out_features, {bias=, dtype=, device=})
--   local y = linear:forward(x)           -- x … × in, y … × out
--   local d_x = linear:backward(d_y)      -- adds into grad.weight and grad.bias
--
-- weight is out × in and bias out, both uniform in ±1/sqrt(in) as torch.nn.Linear starts;
-- {bias = false}: no bias (y = x·weightᵀ), and no 'bias' in named_parameters.
local blame = require 'fused.blame'
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local options = require 'fused.options'
local blame = require 'fused.blame'
local inputs = require 'fused.nn.inputs'

local Linear = Module:extend('Linear')

function Linear:__init(in_features, out_features, opts, ...)
  inputs.no_more('Linear', 3, ...)
  opts = options.check(opts, 'Linear', { 'bias', 'dtype', 'device' })
  if opts.bias ~= nil and type(opts.bias) ~= 'boolean' then
    error(string.format("Linear: option 'bias' expected a boolean, got %s", type(opts.bias)), 3)
  end
  local has_bias = opts.bias ~= false
  opts = self:tensor_options({ dtype = opts.dtype, device = opts.device })
  self:check_size(in_features, 'in_features')
  self:check_size(out_features, 'out_features')
  self.in_features, self.out_features = in_features, out_features
  local bound = 1 / math.sqrt(in_features)
  self:parameter('weight', { out_features, in_features }, opts):uniform(-bound, bound)
  if has_bias then self:parameter('bias', { out_features }, opts):uniform(-bound, bound) end
end

-- x as a 2-D matrix of rows, and the shape of the output.
local function rows_of(self, x, fn)
  inputs.floating(x, fn, 'input', self.weight)
  local n = x.ndim
  if (n ~= 2 and n ~= 3) or tonumber(x.sizes[n - 1]) ~= self.in_features then
    blame(string.format("%s: argument 'input' expected B x %d or T x B x %d, got %s", fn,
                        self.in_features, self.in_features, inputs.shape_text(x)))
  end
  local shape = x:shape()
  shape[n] = self.out_features
  return x:contiguous():view(-1, self.in_features), shape
end

function Linear:extra_repr()
  return string.format('(%d -> %d%s)', self.in_features, self.out_features,
                       self.bias and '' or ', bias=false')
end

function Linear:forward(x, ...)
  inputs.no_more('Linear:forward', 1, ...)
  local rows, shape = rows_of(self, x, 'Linear:forward')
  local b = self.buffers
  local out = { out = self:buffer('output', x) }
  b.output = self.bias and ops.addmm(self.bias, rows, self.weight:t(), out)
             or ops.matmul(rows, self.weight:t(), out)
  self.saved = { rows = rows, in_shape = x:shape(), out_shape = shape }
  return b.output:view(shape)
end

function Linear:backward(d_y)
  local saved = self:expect_saved()
  self:expect_d_output(d_y, saved.out_shape, 'Linear:backward')
  local b = self.buffers
  local d_rows = d_y:contiguous():view(-1, self.out_features)
  b.gradInput = ops.matmul(d_rows, self.weight, { out = self:buffer('gradInput', d_y) })
  self.grad.weight:addmm_(d_rows:t(), saved.rows)
  if self.bias then
    b.bias_sum = ops.sum(d_rows, 1, { out = self:buffer('bias_sum', d_y) })
    self.grad.bias:add_(b.bias_sum:view(-1))
  end
  return b.gradInput:view(saved.in_shape)
end

return Linear
