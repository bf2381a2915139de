-- Reproducible random numbers for data: batch k of a run with seed s always holds the same
-- numbers, whatever ran before it, so a resumed run sees exactly the batches the
-- uninterrupted run saw. Each (seed, k) reseeds fused's generator (the same numbers on every
-- machine), then draws on the host.
local ffi = require 'ffi'
local factory = require 'fused.factory'
local random = require 'fused.ops.random'

local M = {}

-- Streams: 0 for held-out data, k for training batch k (1 to MAX_STEPS), SAMPLING for text
-- samples. Seeds and stream numbers below 2^20 keep (k + 1) * 2^32 + seed an exact integer.
M.MAX_SEED = 2 ^ 20 - 1
M.MAX_STEPS = 2 ^ 20 - 2
M.SAMPLING = 2 ^ 20 - 1

-- Values are read and written through double[n] arrays (0-based) from ffi.new, which own their
-- memory: indexing one keeps it alive. A pointer into a tensor does not keep the tensor alive,
-- so a collection while it is in use frees the values under it.

-- A tensor's values (as float64, row-major) in a double[n] array, and n.
function M.values(t)
  local host = t:to('float64', 'cpu'):contiguous()
  local n = host:numel()
  local values = ffi.new('double[?]', n)
  -- host is this frame's until it returns, and nothing allocates between reading host.data and
  -- the copy: no collection can free it in between, compiled or not.
  ffi.copy(values, host.data, n * 8)
  return values, n
end

-- n uniform numbers in [0, 1) from stream k of seed, in a double[n] array.
function M.uniform(seed, k, n)
  assert(seed >= 0 and seed <= M.MAX_SEED and k >= 0 and k <= M.SAMPLING, 'stream out of range')
  random.manual_seed((k + 1) * 2 ^ 32 + seed)
  return (M.values(factory.rand({ n }, { dtype = 'float64' })))
end

-- A host array of a tensor's values, filled element by element (row-major, 0-based) through
-- .values, then made into a tensor by :tensor(opts) (opts.dtype, opts.device).
local Host = {}
Host.__index = Host

function M.host(shape)
  local n = 1
  for _, size in ipairs(shape) do n = n * size end
  return setmetatable({ shape = shape, n = n, values = ffi.new('double[?]', n) }, Host)
end

function Host:tensor(opts)
  local t = factory.empty(self.shape, { dtype = 'float64' })
  ffi.copy(t.data, self.values, self.n * 8)
  return t:to(opts.dtype, opts.device)
end

-- What generated tasks share: self:make(k, n) gives n sequences from stream k; training batch
-- k and the held-out set (stream 0, made once) come from it.
M.Generated = {}

function M.Generated:batch(k) return self:make(k, self.batch_size) end

function M.Generated:heldout()
  if not self.heldout_set then self.heldout_set = { self:make(0, self.heldout_size) } end
  return self.heldout_set[1], self.heldout_set[2]
end

return M
