-- fused against PyTorch 2.x: tokens/s of a float32 training step (forward from a zero state,
-- backward with d_hs = ones to the parameters and the input) of nn.LSTM and nn.GRU over
-- T = 100, at (B, I, H) = (16, 32, 128) and (64, 256, 512); one thread pinned to CPU 0, then
-- all threads unpinned. fused (under FUSED_GEMM, auto by default, and again on OpenBLAS alone
-- where that differs) and PyTorch (bench/torch_rnn.py, in a python that FUSED_TORCH_PYTHON
-- names, driven over a pipe) run alternately, round after round, each round over every cell
-- and size; each figure is the min over the rounds (the other vCPU's load moves one thread's
-- speed within minutes: only ratios taken side by side mean anything). The limit is the step's
-- GEMM flops, 3 · 2·T·B·(I+H)·G·H, at the faster provider's 1024³ sgemm rate, the best of its
-- timings within the same rounds. Each fused row says which providers ran its step's products
-- (how many on each: the chooser's picks under auto, the per-step products included). Run:
-- make bench-torch (ROUNDS=n).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local ffi = require 'ffi'
local fused = require 'fused'
local bench = require 'bench.common'

io.stdout:setvbuf('line') -- rows as they come, into a file too
local T, ROUNDS = 100, tonumber(os.getenv('ROUNDS') or '') or 5
local CONFIGS = { { 16, 32, 128 }, { 64, 256, 512 } }
local CELLS = { { 'LSTM', 4 }, { 'GRU', 3 } }
local PYTHON = os.getenv('FUSED_TORCH_PYTHON') or 'python3'

ffi.cdef [[
int sched_setaffinity(int pid, size_t size, const void *mask);
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

local torch, why_not = bench.torch_process(PYTHON, 'torch_rnn.py')

local function fused_step(m, xs, ones)
  if m.has_c then m:forward(xs, nil, nil) else m:forward(xs, nil) end
  m:backward(ones)
end

local PROVIDERS = { 'openblas', 'onednn', 'packed' }

-- The products of one step on each provider, "openblas/onednn/packed", from fused's counts
-- over n steps since before.
local function products(before, n)
  local after, parts = fused.config().gemm_calls, {}
  for i, p in ipairs(PROVIDERS) do parts[i] = string.format('%d', (after[p] - before[p]) / n) end
  return table.concat(parts, '/')
end

-- The contestants at one size and cell: {name, run(iters) -> ms of a step, products of a step
-- (fused's)}.
local function contestants(cell, B, I, H)
  fused.manual_seed(0)
  local m, xs, ones = fused.nn[cell](I, H), fused.randn({ T, B, I }), fused.ones({ T, B, H })
  local setting = fused.config().gemm
  local function on(gemm)
    local c = { 'fused ' .. gemm }
    c[2] = function(iters)
      fused.set_gemm(gemm)
      local before = fused.config().gemm_calls
      local t0 = bench.now_us()
      for _ = 1, iters do fused_step(m, xs, ones) end
      local ms = (bench.now_us() - t0) * 1e-3 / iters
      c[3] = products(before, iters)
      fused.set_gemm(setting)
      return ms
    end
    return c
  end
  local list = { on(setting) }
  if setting ~= 'openblas' then list[#list + 1] = on('openblas') end
  if torch then
    list[#list + 1] = { 'torch', function(iters)
      return tonumber(torch.ask(string.format('step %s %d %d %d %d %d', cell, T, B, I, H, iters)))
    end }
  end
  return list
end

-- The best 1024³ sgemm rate of each provider so far in this phase ({openblas = GFLOP/s, ...}),
-- raised by sgemm_round: timed within every round, as the steps are, so that the limit is
-- not taken in a moment when the other vCPU was busy.
local rates
local function sgemm_round()
  local setting = fused.config().gemm
  for _, p in ipairs({ 'openblas', 'onednn' }) do
    if pcall(fused.set_gemm, p) then rates[p] = math.max(rates[p] or 0, bench.sgemm_gflops()) end
  end
  fused.set_gemm(setting)
end

-- The min ms of each contestant of every race (a race: {list = contestants, iters}), round
-- after round over all of them, so that the rounds of one race are spread over the whole
-- phase: a moment when the other vCPU was busy (or far: cross-core latency moved the two-thread
-- step 1.6x within minutes) then spoils one round of each race, not every round of one. Each
-- timing follows an untimed step of its own, as a training loop's steps follow each other
-- (the race before it has left the caches to others).
local function run_races(races)
  for _, r in ipairs(races) do
    r.best = {}
    for i in ipairs(r.list) do r.best[i] = math.huge end
  end
  for _ = 1, ROUNDS do
    for _, r in ipairs(races) do
      for i, c in ipairs(r.list) do c[2](1); r.best[i] = math.min(r.best[i], c[2](r.iters)) end
    end
    sgemm_round()
  end
end

bench.header(string.format('float32 training step against PyTorch, T = %d, min of %d alternating '
                           .. 'rounds', T, ROUNDS))
print(torch and string.format('# PyTorch %s (%s)', torch.version, PYTHON)
      or '# PyTorch: absent (' .. why_not .. '; FUSED_TORCH_PYTHON names another python)')
local ms = {}
for _, threads in ipairs({ 1, ALL }) do
  local pinned = threads == 1
  pin(pinned)
  fused.set_num_threads(threads)
  if torch then torch.ask(string.format('threads %d %d', threads, pinned and 1 or 0)) end
  rates = {}
  local races, rows = {}, {}
  for _, cfg in ipairs(CONFIGS) do
    for _, cell in ipairs(CELLS) do
      local B, I, H = cfg[1], cfg[2], cfg[3]
      races[#races + 1] = { cell = cell, B = B, I = I, H = H, list = contestants(cell[1], B, I, H),
                            iters = B * H < 10000 and 10 or 1 }
    end
  end
  run_races(races)
  for _, r in ipairs(races) do
    local best = r.best
    for i, c in ipairs(r.list) do
      ms[table.concat({ c[1], r.cell[1], r.B, threads }, '/')] = best[i]
      rows[#rows + 1] = { r.cell, r.B, r.I, r.H, c[1], best[i], torch and best[#best], c[3] }
    end
  end
  local fastest = math.max(rates.openblas, rates.onednn or 0)
  print(string.format('\n# %d thread%s%s: 1024^3 sgemm OpenBLAS %.1f GFLOP/s, oneDNN %s (best of '
                      .. 'the rounds)', threads, threads > 1 and 's' or '',
                      pinned and ' pinned to CPU 0' or '', rates.openblas,
                      rates.onednn and string.format('%.1f', rates.onednn) or '-'))
  print(string.format('%-5s %4s %5s %5s  %-16s %9s %11s  %9s  %8s  %s', 'cell', 'B', 'I', 'H',
                      'who', 'ms', 'tokens/s', 'vs torch', 'ms/limit',
                       'products/step ' .. table.concat(PROVIDERS, '/')))
  for _, r in ipairs(rows) do
    local cell, B, I, H, who, t, torch_ms, counts = unpack(r)
    local limit = 3 * 2 * T * B * (I + H) * cell[2] * H / fastest * 1e-6
    print(string.format('%-5s %4d %5d %5d  %-16s %9.2f %11.0f  %9s  %8.2f  %s', cell[1], B, I, H,
                        who, t, T * B / t * 1e3,
                        torch_ms and string.format('%.2fx', torch_ms / t) or '-', t / limit,
                        counts or '-'))
  end
end

print(string.format('\n# %d threads against 1 (tokens/s)', ALL))
for _, cfg in ipairs(CONFIGS) do
  for _, cell in ipairs(CELLS) do
    local parts = {}
    for _, who in ipairs({ 'fused ' .. fused.config().gemm, 'fused openblas', 'torch' }) do
      local one = ms[table.concat({ who, cell[1], cfg[1], 1 }, '/')]
      local all = ms[table.concat({ who, cell[1], cfg[1], ALL }, '/')]
      if one and all then parts[#parts + 1] = string.format('%s %.2fx', who, one / all) end
    end
    print(string.format('%-5s (%d, %d, %d): %s', cell[1], cfg[1], cfg[2], cfg[3],
                        table.concat(parts, ', ')))
  end
end
print('\n# GEMM choices: ' .. fused.config().gemm_choices)
local calls = fused.config().gemm_calls
print(string.format('# products run: openblas %d, onednn %d, packed %d', calls.openblas,
                    calls.onednn, calls.packed))
if torch then torch.close() end
