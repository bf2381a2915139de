-- Data-parallel training for a script like examples/train.lua, on the processes that mpirun
-- starts (fused.distributed; alone, one process and nothing changes). --batch stays the global
-- batch: process r of N takes rows r·B/N + 1 .. (r + 1)·B/N of every batch k, so N processes
-- see exactly the batches of one and train with the same losses up to float reassociation.
-- Rank 0 alone prints, logs, plots and saves.
--
--   local par = Parallel.new(opts.batch)        -- a usage error when B does not split evenly
--   local dp = par:wrap(model)                  -- fused.distributed.DataParallel
--   local xs, ys = par:shard(task, task:batch(k))
--   local loss = model:loss(xs, ys, true); dp:synchronize()
--   loss = par:mean(loss)                       -- the global batch's loss
local distributed = require 'fused.distributed'
local options = require 'fused.train.options'
local factory = require 'fused.factory'

local M = {}
local Parallel = {}
Parallel.__index = Parallel

-- Where a process other than rank 0 prints: nowhere.
M.null = { write = function(self) return self end, flush = function() end }

function M.new(batch)
  local rank, size = distributed.init()
  if batch % size ~= 0 then
    options.usage_error("option '--batch' expected a multiple of the %d processes, got %d", size,
                        batch)
  end
  return setmetatable({ rank = rank, size = size, main = rank == 0, share = batch / size }, Parallel)
end

function Parallel:wrap(model) return distributed.DataParallel(model) end

-- This process's rows of a global batch: xs is T × B × ...; ys B × ... when the task's output
-- is read from the last step, T × B × ... when from every step.
function Parallel:shard(task, xs, ys)
  if self.size == 1 then return xs, ys end
  local first = self.rank * self.share + 1
  return xs:narrow(2, first, self.share):contiguous(),
    ys:narrow(task.output.kind == 'last' and 1 or 2, first, self.share):contiguous()
end

-- The mean of x over the processes: the global batch's loss, each share's being its mean.
function Parallel:mean(x)
  if self.size == 1 then return x end
  self.scalar = self.scalar or factory.zeros({ 1 }, { dtype = 'float64' })
  self.scalar:fill_(x)
  return distributed.allreduce(self.scalar, 'mean'):item()
end

-- The line that says how the batch is split, or nil for one process.
function Parallel:describe()
  if self.size == 1 then return nil end
  return string.format('data parallel: %d processes (MPI), %d sequences each\n', self.size,
                       self.share)
end

return M
