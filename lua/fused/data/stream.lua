-- Reproducible random numbers for data: batch k of a run with seed s always holds the same
-- numbers, whatever ran before it, so a resumed run sees exactly the batches the
-- uninterrupted run saw. Each (seed, k) reseeds fused's generator (the same numbers on every
-- machine), then draws on the host.
local ffi = require 'ffi'
local tensor = require 'fused.tensor'

local M = {}

-- Streams: 0 for held-out data, k for training batch k (1 to MAX_STEPS), SAMPLING for text
-- samples. Seeds and stream numbers below 2^20 keep (k + 1) * 2^32 + seed an exact integer.
M.MAX_SEED = 2 ^ 20 - 1
M.MAX_STEPS = 2 ^ 20 - 2
M.SAMPLING = 2 ^ 20 - 1

-- n uniform numbers in [0, 1) from stream k of seed: a double* into a tensor kept alive by
-- the second result.
function M.uniform(seed, k, n)
  assert(seed >= 0 and seed <= M.MAX_SEED and k >= 0 and k <= M.SAMPLING, 'stream out of range')
  tensor.manual_seed((k + 1) * 2 ^ 32 + seed)
  local t = tensor.rand({ n }, { dtype = 'float64' })
  return ffi.cast('double*', t.data), t
end

-- A T × B (× …) host float64 tensor and a pointer to its values, for filling element by element.
function M.host(shape)
  local t = tensor.empty(shape, { dtype = 'float64' })
  return t, ffi.cast('double*', t.data)
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
