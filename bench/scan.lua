-- fused.scan at (B, T, D) = (8, 4096, 1024), float32: the forward and the forward with its
-- backward (fused.scan_backward, d_h fixed) against PyTorch's associative_scan and the
-- log-space cumsum/logcumsumexp scan of minGRU-pytorch, each with autograd (bench/scan_torch.py,
-- in the python FUSED_TORCH_PYTHON names), one thread pinned to CPU 0; the engine's forward
-- (into a preallocated h) against a memcpy of the same bytes (a and b read, h written) in the
-- same run; then 1 against 2 threads, the engine's backward (into preallocated d_a, d_b) too,
-- with a + b into h (the same bytes through a threaded pointwise op) for what the memory gives
-- a second thread, and the rate at which forward + backward moves its bytes against a + b's.
-- fused runs before and after PyTorch and each figure is the min of both rounds. Run: make
-- bench-scan (REPEATS=n, default 3).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local ffi = require 'ffi'
local fused = require 'fused'
local bench = require 'bench.common'
local C = require('fused.lib').C

io.stdout:setvbuf('line')
local B, T, D = 8, 4096, 1024
local REPEATS = tonumber(os.getenv('REPEATS') or '') or 3
local PYTHON = os.getenv('FUSED_TORCH_PYTHON') or 'python3'

ffi.cdef [[
int sched_setaffinity(int pid, size_t size, const void *mask);
void *memcpy(void *dst, const void *src, size_t n);
]]
fused.set_num_threads(0)
local ALL = fused.get_num_threads()

-- This thread (and the OpenMP threads it starts from now on) on CPU 0, or on every CPU.
local function pin(on)
  local mask = ffi.new('uint64_t[16]')
  for cpu = 0, on and 0 or ALL - 1 do
    mask[math.floor(cpu / 64)] = bit.bor(mask[math.floor(cpu / 64)], bit.lshift(1ULL, cpu % 64))
  end
  assert(ffi.C.sched_setaffinity(0, ffi.sizeof(mask), mask) == 0, 'sched_setaffinity failed')
end

fused.manual_seed(0)
local a = fused.rand(T, B, D):mul_(0.1):add_(0.9)
local b = fused.rand(T, B, D):add_(0.1)
local d_h = fused.randn(T, B, D)
local h = fused.scan(a, b)
local d_a, d_b = fused.scan_backward(d_h, a, h)
local N = T * B * D
local bytes = 3 * N * 4 -- a and b read, h written
local src, dst = fused.rand(3 * N / 2), fused.zeros(3 * N / 2) -- a memcpy reads and writes 3N/2
local a4, b4, h4 = a:view(T, B, 1, 1, D), b:view(T, B, 1, D), h:view(T, B, 1, D)
local d_a4, d_b4, d_h4 = d_a:view(T, B, 1, 1, D), d_b:view(T, B, 1, D), d_h:view(T, B, 1, D)

-- Seconds of each figure, the best of REPEATS calls, at this many threads.
local function run_fused(threads)
  fused.set_num_threads(threads)
  local s = 1e-6
  local function best(f) return bench.best_of(1, REPEATS, f) * s end
  return {
    memcpy = best(function() ffi.C.memcpy(dst.data, src.data, 3 * N / 2 * 4) end),
    add = best(function() fused.add(a, b, { out = h }) end), -- the same bytes, threaded
    engine = best(function() assert(C.fused_linear_scan(h4, a4, b4, nil, nil, nil, 0) == 0) end),
    engine_backward = best(function()
      assert(C.fused_linear_scan_backward(d_a4, d_b4, nil, d_h4, a4, h4, nil, nil, nil, 0) == 0)
    end),
    forward = best(function() local r = fused.scan(a, b) end),
    forward_backward = best(function()
      local y = fused.scan(a, b)
      local d_a, d_b = fused.scan_backward(d_h, a, y)
    end),
  }
end

local function min_into(best, new)
  for k, v in pairs(new) do best[k] = math.min(best[k] or math.huge, v) end
  return best
end

-- PyTorch's figures (seconds by name), or nil and why not.
local function run_torch()
  local dir = debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$')
  local p = io.popen(string.format('taskset -c 0 %s %sscan_torch.py %d %d %d %d 2>&1', PYTHON, dir,
                                   B, T, D, REPEATS))
  local out, version = {}, nil
  for line in p:lines() do
    local name, value = line:match('^(%S+) (%S+)$')
    if name == 'torch' then version = value
    elseif name and tonumber(value) then out[name] = tonumber(value) end
  end
  p:close()
  if not out.log_forward_backward then return nil, PYTHON .. ' did not run bench/scan_torch.py' end
  return out, version
end

bench.header(string.format('fused.scan, (B, T, D) = (%d, %d, %d) float32, best of %d calls, '
                           .. 'fused before and after PyTorch', B, T, D, REPEATS))
pin(true)
local one = run_fused(1)
local torch, version = run_torch()
pin(true)
min_into(one, run_fused(1))
pin(false)
local two = min_into(run_fused(2), run_fused(2))

local function ms(s) return string.format('%9.1f', s * 1e3) end
print(string.format('\n# one thread pinned to CPU 0%s', torch and
                    string.format('; PyTorch %s (%s), torch.set_num_threads(1)', version, PYTHON)
                    or '; PyTorch: ' .. version))
print('| figure | fused ms | assoc ms | log ms | assoc / fused | log / fused |')
print('| --- | ---: | ---: | ---: | ---: | ---: |')
for _, k in ipairs({ 'forward', 'forward_backward' }) do
  local at, lt = torch and torch['assoc_' .. k], torch and torch['log_' .. k]
  print(string.format('| %s | %s | %s | %s | %s | %s |', k:gsub('_', ' + '), ms(one[k]),
                      at and ms(at) or '-', lt and ms(lt) or '-',
                      at and string.format('%.1fx', at / one[k]) or '-',
                      lt and string.format('%.1fx', lt / one[k]) or '-'))
end
print(string.format('\n# memory: the engine moves %.0f MB (a, b read, h written) at %.2f GB/s; a '
                    .. 'memcpy of the same bytes %.2f GB/s: %.0f%% of memcpy (one thread)',
                    bytes / 1e6, bytes / one.engine / 1e9, bytes / one.memcpy / 1e9,
                    100 * one.memcpy / one.engine))
print('\n| threads | engine ms | engine backward ms | fused.scan ms | scan + backward ms | '
      .. 'a + b into h ms |')
print('| ---: | ---: | ---: | ---: | ---: | ---: |')
for n, r in ipairs({ one, two }) do
  print(string.format('| %d | %s | %s | %s | %s | %s |', n, ms(r.engine), ms(r.engine_backward),
                      ms(r.forward), ms(r.forward_backward), ms(r.add)))
end
print(string.format('# 2 threads against 1: engine %.2fx, its backward %.2fx, fused.scan %.2fx, '
                    .. 'scan + backward %.2fx; '
                    .. 'a + b into h (the same bytes, a threaded pointwise op: what the memory '
                    .. 'gives a second thread) %.2fx', one.engine / two.engine,
                    one.engine_backward / two.engine_backward, one.forward / two.forward,
                    one.forward_backward / two.forward_backward, one.add / two.add))
-- Forward and backward move 8 arrays through the engine (a, b read, h written; d_h, a, h read,
-- d_a, d_b written) and 3 fresh results, h, d_a and d_b, that the kernel zeroes at their first
-- touch: 11 arrays, against a + b's 3, the rate the memory gives two threads.
local moved, add_rate = 11 * N * 4, 3 * N * 4 / two.add
print(string.format('# memory: scan + backward moves %.0f MB (8 arrays through the engine, 3 fresh '
                    .. 'results zeroed at their first touch): %.1f GB/s on one thread, %.1f on '
                    .. 'two, %.0f%% of the %.1f GB/s of a + b on two', moved / 1e6,
                    moved / one.forward_backward / 1e9, moved / two.forward_backward / 1e9,
                    100 * moved / two.forward_backward / add_rate, add_rate / 1e9))
