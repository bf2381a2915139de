-- The copy-memory task (Arjovsky et al. 2016): 10 symbols drawn from 8, then T - 1 blanks, a
-- delimiter and 10 blanks (T + 20 steps in all); the target is blanks until the delimiter's
-- 10 echoes, which must recall the 10 symbols in order. Predicting blanks and then a uniform
-- guess scores 10 log(8) / (T + 20) nats per step: the baseline.
--
-- Symbols count from 1: 1 blank, 2 to 9 the data, 10 the delimiter (inputs only). Inputs and
-- targets are (T + 20) × B int64 tensors of those indices.
--
--   local task = require('fused.data.copy').new{ seq_len = T, batch = B, seed =, heldout =, ... }
local stream = require 'fused.data.stream'

local M = {}
local Task = setmetatable({}, { __index = stream.Generated })
Task.__index = Task

local BLANK, DELIMITER, SYMBOLS, LENGTH = 1, 10, 8, 10

function M.new(opts)
  assert(opts.seq_len >= 1, 'copy: seq_len expected >= 1')
  local T = opts.seq_len
  return setmetatable({
    name = 'copy', seq_len = T, steps = T + 2 * LENGTH, batch_size = opts.batch, seed = opts.seed,
    heldout_size = opts.heldout or 256, tensor_opts = { dtype = 'int64', device = opts.device },
    input = { kind = 'tokens', vocab = DELIMITER },
    output = { kind = 'every', classes = 1 + SYMBOLS, loss = 'CrossEntropyLoss' },
    metric = 'cross-entropy (nats/step)', baseline = LENGTH * math.log(SYMBOLS) / (T + 2 * LENGTH),
    baseline_text = 'blanks, then a uniform guess',
  }, Task)
end

function Task:make(k, n)
  local L, T = self.steps, self.seq_len
  local u = stream.uniform(self.seed, k, n * LENGTH)
  local xs, ys = stream.host({ L, n }), stream.host({ L, n })
  local x, y = xs.values, ys.values
  for b = 0, n - 1 do
    for t = 0, L - 1 do x[t * n + b], y[t * n + b] = BLANK, BLANK end
    for i = 0, LENGTH - 1 do
      local symbol = 2 + math.floor(u[b * LENGTH + i] * SYMBOLS)
      x[i * n + b] = symbol
      y[(T + LENGTH + i) * n + b] = symbol
    end
    x[(LENGTH + T - 1) * n + b] = DELIMITER
  end
  return xs:tensor(self.tensor_opts), ys:tensor(self.tensor_opts)
end

return M
