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

-- Per step, the fastest forward and backward of n steps (this machine is shared: the fastest
-- step is the one least disturbed).
local function time(m, n)
  local fwd, bwd = math.huge, math.huge
  for _ = 1, n do
    local t0 = os.clock()
    m:forward(x, h, c)
    local t1 = os.clock()
    m:backward(d_h, d_c)
    fwd, bwd = math.min(fwd, t1 - t0), math.min(bwd, os.clock() - t1)
  end
  return fwd * 1e6, bwd * 1e6
end

time(composed, 20)
time(derived, 20)
local best = { math.huge, math.huge, math.huge, math.huge }
for _ = 1, 10 do -- side by side, in turns
  local f1, b1 = time(composed, 20)
  local f2, b2 = time(derived, 20)
  best = { math.min(best[1], f1), math.min(best[2], b1), math.min(best[3], f2), math.min(best[4], b2) }
end
print(string.format('B=%d I=%d H=%d float64 CPU, fastest step of 10 x 20 in turns (us)', B, I, H))
print(string.format('hand-written composed: forward %8.1f  backward %8.1f', best[1], best[2]))
print(string.format('derived (tape):        forward %8.1f  backward %8.1f  (backward %.2fx)', best[3],
                    best[4], best[4] / best[2]))
