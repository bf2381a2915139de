-- Run by spec/distributed_spec.lua on 2 processes: rank 1 builds a model that differs from
-- rank 0's as arg[1] says (hidden, dtype, cell, extra, device); DataParallel must end both
-- with the same error naming the first difference, before any gradient moves.
local helper = require 'spec.helper'
local fused = helper.fused
local Module = require 'fused.nn.Module'
local dist = fused.distributed

local rank = dist.init()
local case = arg[1]
local differs = rank == 1
local Model = Module:extend('Model')
function Model:__init()
  local hidden = (differs and case == 'hidden') and 16 or 32
  local dtype = (differs and case == 'dtype') and 'float64' or 'float32'
  local Cell = (differs and case == 'cell') and fused.nn.GRU or fused.nn.LSTM
  self.rnn = Cell(4, hidden, { dtype = dtype })
  if differs and case == 'extra' then self.head = fused.nn.Linear(hidden, 1) end
  if differs and case == 'device' then self.rnn:cuda() end
end

local ok, err = pcall(dist.DataParallel, Model())
assert(not ok, 'rank ' .. rank .. ': DataParallel accepted different models')
print(string.format('rank %d: %s', rank, tostring(err)))
dist.barrier() -- both have printed; the job ends cleanly
