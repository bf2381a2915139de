-- The cost of one small op through the FFI: add on 16 floats, with and without allocating the
-- result, beside allocation alone. Run: make bench-ffi
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local C = fused.C

local function time_per_call(n, f)
  f(1000) -- warm up and let the JIT compile
  local best = math.huge
  for _ = 1, 5 do
    local t0 = os.clock()
    f(n)
    best = math.min(best, (os.clock() - t0) / n)
  end
  return best * 1e9
end

local a, b, out = fused.ones({ 16 }), fused.ones({ 16 }), fused.empty({ 16 })
local N = 1000000
local rows = {
  { 'a + b (allocates the result)', time_per_call(N, function(n) for _ = 1, n do local _ = a + b end end) },
  { 'fused_binary into a preallocated out', time_per_call(N, function(n)
      for _ = 1, n do C.fused_binary(C.FUSED_ADD, out, a, b) end end) },
  { 'fused.empty({16}) alone', time_per_call(N, function(n) for _ = 1, n do local _ = fused.empty({ 16 }) end end) },
}
print(string.format('# per-call cost, best of 5 runs of %d calls, one thread', N))
print(string.format('%-40s %10s', 'what', 'ns/call'))
for _, r in ipairs(rows) do print(string.format('%-40s %10.1f', r[1], r[2])) end
