-- The derived backward of the composed LLTM cell (docs/lltm.md) against its hand-written one
-- (nn.LLTMCellComposed), float64 on the CPU: LUA_PATH='lua/?.lua;lua/?/init.lua;;' luajit
-- scripts/tape_lltm.lua [batch] [input_features] [state_size]
local fused = require 'fused'
local nn = fused.nn

local B, I, H = tonumber(arg[1]) or 32, tonumber(arg[2]) or 32, tonumber(arg[3]) or 128
local o = { dtype = 'float64' }

-- The cell's forward only; its backward is derived.
local LLTM = nn.Module:extend('LLTMForwardOnly')
function LLTM:__init(from)
  self:parameter('weight', from.weight:shape(), o):copy_(from.weight)
  self:parameter('bias', from.bias:shape(), o):copy_(from.bias)
end
function LLTM:forward(x, h, c)
  local gates = fused.addmm(self.bias, fused.cat({ h, x }, 2), self.weight:t()):chunk(3, 2)
  local new_c = gates[3]:elu():mul(gates[1]:sigmoid()):add(c)
  return new_c:tanh():mul(gates[2]:sigmoid()), new_c
end

local composed = nn.LLTMCellComposed(I, H, o)
local derived = LLTM(composed)
local x, h, c = fused.randn({ B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
local d_h, d_c = fused.randn({ B, H }, o), fused.randn({ B, H }, o)

-- One step's forward and backward times (us).
local function step(m)
  local t0 = os.clock()
  m:forward(x, h, c)
  local t1 = os.clock()
  m:backward(d_h, d_c)
  return (t1 - t0) * 1e6, (os.clock() - t1) * 1e6
end

-- This machine is shared: the two step by step in turns, so that a disturbance falls on both
-- alike, and of each the fastest step and the median one (which garbage collection reaches).
local N = 400
local times = { cf = {}, cb = {}, df = {}, db = {} }
for _ = 1, 20 do step(composed); step(derived) end
for i = 1, N do
  times.cf[i], times.cb[i] = step(composed)
  times.df[i], times.db[i] = step(derived)
end
local function stats(list)
  table.sort(list)
  return list[1], list[math.floor(#list / 2)]
end
local cf, cfm = stats(times.cf)
local cb, cbm = stats(times.cb)
local df, dfm = stats(times.df)
local db, dbm = stats(times.db)
print(string.format('B=%d I=%d H=%d float64 CPU, %d steps of each in turns: fastest / median step (us)', B, I, H, N))
print(string.format('hand-written composed: forward %7.1f / %7.1f  backward %7.1f / %7.1f', cf, cfm, cb, cbm))
print(string.format('derived (tape):        forward %7.1f / %7.1f  backward %7.1f / %7.1f', df, dfm, db, dbm))
print(string.format('derived backward / hand-written: fastest %.2fx, median %.2fx', db / cb, dbm / cbm))
-- What does not depend on the machine's load: the storages a backward allocates.
local function allocations(m)
  m:forward(x, h, c)
  local before = fused.debug.allocations()
  m:backward(d_h, d_c)
  return fused.debug.allocations() - before
end
print(string.format('storages allocated per backward: hand-written %d, derived %d', allocations(composed),
                    allocations(derived)))
