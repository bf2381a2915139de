-- A graph convolution (Kipf and Welling): out = act(A·X·Wᵀ + b) for an N x N adjacency A, dense
-- (a tensor) or sparse (fused.sparse), and node features X (N x in_features).
--
--   local gc = fused.nn.GraphConv(in_features, out_features, {activation = 'relu', dtype =, device =})
--   local out = gc:forward(A, X)         -- N x out_features
--   local d_X = gc:backward(grad_out)    -- adds into grad.weight and grad.bias (A is not differentiated)
--
-- weight is out x in, as nn.Linear's and PyTorch Geometric's GCNConv.lin.weight (a GCNConv
-- state_dict loads as {weight = sd['lin.weight'], bias = sd['bias']}; GCNConv normalises A
-- itself, here A comes normalised), Glorot uniform, and bias zeros, as Kipf and Welling's code
-- starts. The
-- product is taken as A·(X·Wᵀ) when out_features <= in_features, so that the propagation by A runs
-- over the narrower matrix, else as (A·X)·Wᵀ. The bias and relu go into the last pass: the
-- sparse product's own (one pass over the rows), or the GEMM's bias and a relu pass after it.
-- Kept for backward: A and the output, with X (A·(X·Wᵀ)) or A·X ((A·X)·Wᵀ). Backward multiplies by
-- Aᵀ; a sparse Aᵀ is built once per A (a cache keyed on the matrix, shared by every layer), so
-- a training loop over one graph transposes it once. A is taken as unchanging.
local blame = require 'fused.blame'
local Module = require 'fused.nn.Module'
local ops = require 'fused.ops'
local options = require 'fused.options'
local sparse = require 'fused.sparse'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local inputs = require 'fused.nn.inputs'

local GraphConv = Module:extend('GraphConv')

function GraphConv:__init(in_features, out_features, opts, ...)
  inputs.no_more('GraphConv', 3, ...)
  opts = options.check(opts, 'GraphConv', { 'activation', 'device', 'dtype' })
  if opts.activation ~= nil and opts.activation ~= 'relu' then
    error(string.format("GraphConv: option 'activation' expected 'relu' or nil, got %s",
                        type(opts.activation) == 'string' and "'" .. opts.activation .. "'" or tostring(opts.activation)), 3)
  end
  local topts = self:tensor_options({ dtype = opts.dtype, device = opts.device })
  self:check_size(in_features, 'in_features')
  self:check_size(out_features, 'out_features')
  self.in_features, self.out_features, self.activation = in_features, out_features, opts.activation
  local bound = math.sqrt(6 / (in_features + out_features))
  self:parameter('weight', { out_features, in_features }, topts):uniform(-bound, bound)
  self:parameter('bias', { out_features }, topts)
end

-- Aᵀ of a sparse A, built on its first use; the entry goes with A.
local transposes = setmetatable({}, { __mode = 'k' })
local function transpose(A)
  if not sparse.is_sparse(A) then return A:t() end
  local At = transposes[A]
  if not At then
    At = A:t()
    transposes[A] = At
  end
  return At
end

local function shape_of(x)
  return sparse.is_sparse(x) and table.concat(x:size(), ' x ') .. ' (sparse)' or '[' .. table.concat(x:shape(), ', ') .. ']'
end

-- A (N x N) and X (N x in_features), on the module's dtype and device.
local function check_inputs(self, A, X, ...)
  local fn = 'GraphConv:forward'
  inputs.no_more(fn, 2, ...)
  if not (sparse.is_sparse(A) or argcheck.is_tensor(A)) then
    blame(string.format("%s: argument 'A' expected a tensor or a sparse matrix, got %s", fn, argcheck.type_name(A)))
  end
  if not sparse.is_sparse(A) then inputs.floating(A, fn, 'A', self.weight) end
  if not sparse.is_sparse(A) and A.ndim ~= 2 or A:size(1) ~= A:size(2) then
    blame(string.format("%s: argument 'A' expected a square N x N adjacency, got %s", fn, shape_of(A)))
  end
  inputs.floating(X, fn, 'X', self.weight)
  local n = A:size(1)
  if X.ndim ~= 2 or X:size(1) ~= n or X:size(2) ~= self.in_features then
    blame(string.format("%s: argument 'X' expected %d x %d (N from 'A' x in_features), got %s", fn,
                        n, self.in_features, shape_of(X)))
  end
  local w = self.weight
  if sparse.is_sparse(A) and (A.dtype ~= w.dtype or A.device ~= w.device) then
    blame(string.format("%s: argument 'A' expected %s on %s (the module's), got %s on %s", fn,
                        w.dtype, w.device, A.dtype, A.device))
  end
end

-- The buffer `name` = relu?(A @ M + bias) (bias and relu optional).
local function propagate(self, name, A, M, bias, relu)
  local out = self:buffer(name, M)
  if sparse.is_sparse(A) then
    out = sparse.mm(A, M, { bias = bias, activation = relu and 'relu' or nil, out = out })
  else
    out = bias and ops.addmm(bias, A, M, { out = out }) or ops.matmul(A, M, { out = out })
    if relu then out:relu_() end
  end
  self.buffers[name] = out
  return out
end

-- backward returns X's gradient alone: A is not differentiated (autograd/modules.lua reads this
-- inside a recorded forward).
GraphConv.no_gradient = { 'A' }

function GraphConv:forward(A, X, ...)
  check_inputs(self, A, X, ...)
  local b, relu = self.buffers, self.activation == 'relu'
  if self.out_features <= self.in_features then
    b.XW = ops.matmul(X, self.weight:t(), { out = self:buffer('XW', X) })
    propagate(self, 'output', A, b.XW, self.bias, relu)
    self.saved = { A = A, X = X }
  else
    propagate(self, 'AX', A, X)
    b.output = ops.addmm(self.bias, b.AX, self.weight:t(), { out = self:buffer('output', X) })
    if relu then b.output:relu_() end
    self.saved = { A = A, AX = b.AX }
  end
  return b.output
end

function GraphConv:backward(grad_out)
  local saved = self:expect_saved()
  local b = self.buffers
  inputs.shaped(grad_out, 'GraphConv:backward', 'grad_out', self.weight, b.output:shape(),
                "the output's")
  local g = grad_out -- the gradient at A·X·Wᵀ + b: through the relu, whose output says where it passed
  if self.activation == 'relu' then
    b.grad_z = ops.d_relu(b.output, { out = self:buffer('grad_z', grad_out) }):mul_(grad_out)
    g = b.grad_z
  end
  b.bias_sum = ops.sum(g, 1, { out = self:buffer('bias_sum', g) })
  self.grad.bias:add_(b.bias_sum:view(-1))
  local At = transpose(saved.A)
  if saved.X then -- A·(X·Wᵀ): d_W = (Aᵀ·g)ᵀ·X, d_X = (Aᵀ·g)·W
    local AtG = propagate(self, 'AtG', At, g)
    self.grad.weight:addmm_(AtG:t(), saved.X)
    b.gradInput = ops.matmul(AtG, self.weight, { out = self:buffer('gradInput', g) })
  else -- (A·X)·Wᵀ: d_W = gᵀ·(A·X), d_X = Aᵀ·(g·W)
    self.grad.weight:addmm_(g:t(), saved.AX)
    b.dAX = ops.matmul(g, self.weight, { out = self:buffer('dAX', g) })
    propagate(self, 'gradInput', At, b.dAX)
  end
  return b.gradInput
end

return GraphConv
