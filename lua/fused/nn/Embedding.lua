-- A lookup table: row i of weight for index i (indices count from 1, as in Lua and Torch7).
--
--   local embed = fused.nn.Embedding(num_embeddings, embedding_dim, {padding_idx=, dtype=, device=})
--   local y = embed:forward(indices)   -- indices: a (nested) Lua table or a tensor of shape S
--                                      -- holding integers 1..num_embeddings; y is S × dim
--   embed:backward(d_y)                -- adds into grad.weight (repeated indices add up)
--
-- weight starts normal(0, 1), as torch.nn.Embedding's. padding_idx (counted from 1 as the
-- indices, negative from the end; PyTorch's padding_idx + 1): that row starts at zero and
-- backward never adds into its gradient, so an optimizer leaves it as it is. Indices have no
-- gradient: backward returns nothing.
local embedding = require 'fused.functional.embedding'
local inputs = require 'fused.nn.inputs'
local Module = require 'fused.nn.Module'
local options = require 'fused.options'
local argcheck = require 'fused.check'

local Embedding = Module:extend('Embedding')

function Embedding:__init(num_embeddings, embedding_dim, opts, ...)
  inputs.no_more('Embedding', 3, ...)
  opts = options.check(opts, 'Embedding', { 'padding_idx', 'dtype', 'device' })
  local padding_idx = opts.padding_idx
  opts = self:tensor_options({ dtype = opts.dtype, device = opts.device })
  self:check_size(num_embeddings, 'num_embeddings')
  self:check_size(embedding_dim, 'embedding_dim')
  self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
  self:parameter('weight', { num_embeddings, embedding_dim }, opts):normal(0, 1)
  if padding_idx ~= nil then
    local p = padding_idx
    if type(p) ~= 'number' or p ~= math.floor(p) or p == 0 or p > num_embeddings or p < -num_embeddings then
      error(string.format("Embedding: option 'padding_idx' expected an index in 1..%d (or -%d..-1 from the end), got %s",
                          num_embeddings, num_embeddings, tostring(p)), 3)
    end
    self.padding_idx = p < 0 and num_embeddings + p + 1 or p
    self.weight:narrow(1, self.padding_idx, 1):zero_()
  end
end

function Embedding:extra_repr()
  return string.format('(num_embeddings=%d, embedding_dim=%d%s)', self.num_embeddings, self.embedding_dim,
                       self.padding_idx and ', padding_idx=' .. self.padding_idx or '')
end

-- The C kernels take int64 indices on the weight's device: an int64 tensor, or a table, whose
-- conversion to int64 rejects a value that is not an integer.
local function index_tensor(indices, like)
  if type(indices) == 'table' then indices = inputs.index_list(indices, 'Embedding:forward', 'indices') end
  argcheck.expect_dtype(indices, 'int64', 'Embedding:forward', 'indices')
  return indices:to(like.device):contiguous()
end

function Embedding:forward(indices, ...)
  inputs.no_more('Embedding:forward', 1, ...)
  local idx = index_tensor(indices, self.weight)
  self.buffers.output = embedding.as.embedding('Embedding:forward', idx, self.weight,
                                               { out = self:buffer('output', self.weight) })
  self.saved = { indices = idx }
  return self.buffers.output
end

function Embedding:backward(d_y)
  local saved = self:expect_saved()
  local shape = saved.indices:shape()
  shape[#shape + 1] = self.embedding_dim
  inputs.shaped(d_y, 'Embedding:backward', 'd_output', self.weight, shape, "the output's")
  local fn = 'Embedding:backward'
  if not self.padding_idx then
    embedding.as.embedding_backward_accumulate(fn, d_y, saved.indices, self.grad.weight)
    return
  end
  -- The padding row's gradient as it was before, put back after the others are added.
  local row = self.grad.weight:narrow(1, self.padding_idx, 1)
  local kept = self:buffer_shaped('padding_grad', row:shape(), row):copy_(row)
  embedding.as.embedding_backward_accumulate(fn, d_y, saved.indices, self.grad.weight)
  row:copy_(kept)
end

return Embedding
