-- What the tape (lua/fused/autograd/) costs a small op, off and on (docs/nn.md, "A layer with a
-- forward only"): LUA_PATH='lua/?.lua;lua/?/init.lua;;' luajit scripts/tape_overhead.lua
local fused = require 'fused'
local o = { dtype = 'float64' }
local x, y = fused.randn({ 4 }, o), fused.randn({ 4 }, o)
local N = 200000

local function time(label, f)
  f(N / 10)
  local best = math.huge
  for _ = 1, 5 do
    local t0 = os.clock()
    f(N)
    best = math.min(best, os.clock() - t0)
  end
  print(string.format('%-34s %.3f us/op', label, best / N * 1e6))
end

time('add, nothing recording', function(n) for _ = 1, n do x:add(y) end end)
time('view(-1), nothing recording', function(n) for _ = 1, n do x:view(-1) end end)
local recorded = fused.grad(function(p, n)
  for _ = 1, n do p.x:add(y) end
  return 0
end)
time('add recorded', function(n) recorded({ x = x }, n) end)
local beside = fused.grad(function(_, n)
  for _ = 1, n do y:add(y) end
  return 0
end)
time('add of no recorded tensor, recording', function(n) beside({ x = x }, n) end)
