-- The LLTM step, fused (nn.LLTMCell) against composed (nn.LLTMCellComposed), float32, with the
-- PyTorch tutorial's protocol: time the forward call, then the backward of
-- new_h:sum() + new_c:sum() (grad_h = grad_c = ones), many times after a warm-up; min and
-- median µs of each. Also, per shape, the floor (the step's three GEMMs alone: gatesᵀ = W·Xᵀ,
-- d_X = d_gates·W, d_W = d_gatesᵀ·X) and the compute limit (their flops at the rate of a
-- 1024x1024x1024 sgemm measured in this run).
-- Run: make bench (PyTorch's side: /usr/bin/python3 ../shared/bench/pytorch_lltm.py
-- --device cpu --threads 1 --full-grad, in the same session).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local C = fused.C

local bench = require 'bench.common'
local best_of = bench.best_of

local CONFIGS = { { 16, 32, 128 }, { 64, 256, 512 }, { 256, 1024, 1024 } }
-- Iterations per shape: the whole bench stays under 3 minutes on 2 cores.
local function iterations(B, I, H)
  local work = B * (I + H) * H
  if work < 1e6 then return 300, 3000 end
  if work < 1e8 then return 10, 150 end
  return 2, 8
end

-- The step's three GEMMs on the whole W into preallocated outputs, each in its fast layout.
local function time_floor(B, I, H, warm, iters)
  local K = H + I
  local W, xt, gates_t = fused.randn({ 3 * H, K }), fused.randn({ K, B }), fused.empty({ 3 * H, B })
  local d_gates, X = fused.randn({ B, 3 * H }), fused.randn({ B, K })
  local d_X, d_W = fused.empty({ B, K }), fused.empty({ 3 * H, K })
  local d_gates_t = d_gates:t()
  return best_of(warm, iters, function()
    C.fused_addmm(gates_t, nil, W, xt, 0, 1)
    C.fused_addmm(d_X, nil, d_gates, W, 0, 1)
    C.fused_addmm(d_W, nil, d_gates_t, X, 0, 1)
  end)
end

local threads_all = (function()
  fused.set_num_threads(0)
  return fused.get_num_threads()
end)()

bench.header(string.format('LLTM step, float32, µs; machine threads %d', threads_all))
local rows, limits = {}, {}
for _, threads in ipairs({ 1, threads_all }) do
  fused.set_num_threads(threads)
  local gflops = bench.sgemm_gflops()
  print(string.format('# threads %d: 1024^3 sgemm %.1f GFLOP/s', threads, gflops))
  print(string.format('%-17s %3s %4s %5s %5s  %8s %8s  %8s %8s  %8s', 'impl', 'thr', 'B', 'I',
                      'H', 'fwd med', 'fwd min', 'bwd med', 'bwd min', 'sum min'))
  for _, cfg in ipairs(CONFIGS) do
    local B, I, H = cfg[1], cfg[2], cfg[3]
    local warm, iters = iterations(B, I, H)
    local key = table.concat(cfg, ',') .. '/' .. threads
    rows[key] = {}
    for _, class in ipairs({ 'LLTMCellComposed', 'LLTMCell' }) do
      local r = bench.time_cell_step(class, B, I, H, warm, iters, 'cpu')
      rows[key][class] = r
      print(string.format('%-17s %3d %4d %5d %5d  %8.1f %8.1f  %8.1f %8.1f  %8.1f', class,
                          threads, B, I, H, r.fwd_med, r.fwd_min, r.bwd_med, r.bwd_min,
                          r.fwd_min + r.bwd_min))
    end
    local flops = 3 * 2 * B * (H + I) * 3 * H
    limits[key] = { floor = time_floor(B, I, H, warm, iters), limit = flops / gflops * 1e-3 }
  end
end

print('\n# per config (min times): floor = the three GEMMs alone; limit = their flops at the')
print('# 1024^3 sgemm rate of the same thread count; fused = LLTMCell forward + backward')
print(string.format('%4s %5s %5s %3s  %9s %9s %9s  %11s %11s %14s', 'B', 'I', 'H', 'thr',
                    'floor µs', 'limit µs', 'fused µs', 'fused/floor', 'fused/limit',
                    'composed/fused'))
for _, threads in ipairs({ 1, threads_all }) do
  for _, cfg in ipairs(CONFIGS) do
    local key = table.concat(cfg, ',') .. '/' .. threads
    local f, k = rows[key].LLTMCell, rows[key].LLTMCellComposed
    local fused_us = f.fwd_min + f.bwd_min
    local l = limits[key]
    print(string.format('%4d %5d %5d %3d  %9.1f %9.1f %9.1f  %11.2f %11.2f %14.2f', cfg[1],
                        cfg[2], cfg[3], threads, l.floor, l.limit, fused_us, fused_us / l.floor,
                        fused_us / l.limit, (k.fwd_min + k.bwd_min) / fused_us))
  end
end

print('\n# threads: LLTMCell forward + backward (min), 1 thread / ' .. threads_all .. ' threads')
for _, cfg in ipairs(CONFIGS) do
  local one, all = rows[table.concat(cfg, ',') .. '/1'].LLTMCell,
                   rows[table.concat(cfg, ',') .. '/' .. threads_all].LLTMCell
  print(string.format('%4d %5d %5d  %.2fx', cfg[1], cfg[2], cfg[3],
                      (one.fwd_min + one.bwd_min) / (all.fwd_min + all.bwd_min)))
end
bench.pytorch('--device cpu --threads 1 --full-grad')
