-- The adding problem (Hochreiter & Schmidhuber 1997; Arjovsky et al. 2016): T steps of two
-- channels, a value uniform in [0, 1] and a marker that is 1 at two steps (one in each
-- half) and 0 elsewhere; the target is the sum of the two marked values, read from the last
-- step. Predicting 1 (the mean) always scores MSE 1/6 = 0.167: the baseline.
--
--   local task = require('fused.data.adding').new{ seq_len = 100, batch = 64, seed = 1,
--                                                 heldout = 1000, dtype =, device = }
--   local xs, y = task:batch(k)   -- xs T × B × 2, y B × 1; the same for the same (seed, k)
--   local xs, y = task:heldout()  -- a fixed set of `heldout` sequences, made once
local stream = require 'fused.data.stream'

local M = {}
local Task = setmetatable({}, { __index = stream.Generated })
Task.__index = Task

function M.new(opts)
  assert(opts.seq_len >= 2, 'adding: seq_len expected >= 2')
  return setmetatable({
    name = 'adding', seq_len = opts.seq_len, batch_size = opts.batch, seed = opts.seed,
    heldout_size = opts.heldout or 1000, tensor_opts = { dtype = opts.dtype, device = opts.device },
    input = { kind = 'dense', size = 2 }, output = { kind = 'last', size = 1, loss = 'MSELoss' },
    metric = 'MSE', baseline = 1 / 6, baseline_text = 'predicting 1 always',
  }, Task)
end

-- n sequences from stream k: per sequence T values, then two marker draws.
function Task:make(k, n)
  local T, half = self.seq_len, math.floor(self.seq_len / 2)
  local u = stream.uniform(self.seed, k, n * (T + 2))
  local xs, ys = stream.host({ T, n, 2 }), stream.host({ n, 1 })
  local x, y = xs.values, ys.values
  for b = 0, n - 1 do
    local base = b * (T + 2) -- this sequence's draws start at u[base]
    local first = math.floor(u[base + T] * half)                      -- 0 .. half-1
    local second = half + math.floor(u[base + T + 1] * (T - half))    -- half .. T-1
    for t = 0, T - 1 do
      local at = (t * n + b) * 2
      x[at] = u[base + t]
      x[at + 1] = (t == first or t == second) and 1 or 0
    end
    y[b] = u[base + first] + u[base + second]
  end
  return xs:tensor(self.tensor_opts), ys:tensor(self.tensor_opts)
end

return M
