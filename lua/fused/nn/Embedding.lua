-- A lookup table: row i of weight for index i (indices count from 1, as in Lua and Torch7).
--
--   local embed = fused.nn.Embedding(num_embeddings, embedding_dim, {dtype=, device=})
--   local y = embed:forward(indices)   -- indices: a (nested) Lua table or a tensor of shape S
--                                      -- holding integers 1..num_embeddings; y is S × dim
--   embed:backward(d_y)                -- adds into gradWeight (repeated indices add up)
--
-- weight starts normal(0, 1), as torch.nn.Embedding's. Indices have no gradient: backward
-- returns nothing.
local functional = require 'fused.functional'
local Module = require 'fused.nn.Module'
local tensor = require 'fused.tensor'

local Embedding = Module:extend('Embedding')

function Embedding:__init(num_embeddings, embedding_dim, opts)
  opts = self:tensor_options(opts)
  self:check_size(num_embeddings, 'num_embeddings')
  self:check_size(embedding_dim, 'embedding_dim')
  self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
  self.weight = tensor.empty({ num_embeddings, embedding_dim }, opts):normal(0, 1)
  self.gradWeight = tensor.zeros(self.weight:shape(), opts)
end

function Embedding:extra_repr()
  return string.format('(num_embeddings=%d, embedding_dim=%d)', self.num_embeddings, self.embedding_dim)
end

-- The C kernels take int64 indices on the weight's device: an int64 tensor, or a table, whose
-- conversion to int64 rejects a value that is not an integer.
local function index_tensor(indices, like)
  if type(indices) == 'table' then indices = tensor.tensor(indices, { dtype = 'int64' }) end
  tensor.expect_dtype(indices, 'int64', 'Embedding:forward', 'indices')
  return indices:to(like.device):contiguous()
end

function Embedding:forward(indices)
  local idx = index_tensor(indices, self.weight)
  self.buffers.output = functional.embedding(idx, self.weight,
                                             { out = self:buffer('output', self.weight) })
  self.saved = { indices = idx }
  return self.buffers.output
end

function Embedding:backward(d_y)
  local saved = self:expect_saved()
  tensor.expect(d_y, 'Embedding:backward', 'd_output')
  functional.embedding_backward_accumulate(d_y, saved.indices, self.gradWeight)
end

return Embedding
