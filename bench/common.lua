-- What the benchmark scripts share: a monotonic clock, median and min of samples, the best of
-- repeated calls, the sgemm rate that the compute limits are measured against, and PyTorch's
-- process over a pipe for the benchmarks that alternate with it.
-- Scripts load it with require 'bench.common' from the checkout's root.
local ffi = require 'ffi'
local fused = require 'fused'
-- fused's clock: a declaration of clock_gettime of its own here made fused's (fused.cell.define
-- times its compiles) fail on the other's struct
local clock = require 'fused.train.progress'

local M = {}

-- Microseconds on CLOCK_MONOTONIC.
function M.now_us() return clock.now() * 1e6 end

-- What every benchmark prints first: its title, the date, and the machine as fused.config()
-- gives it (CPU, vector path, threads, OpenBLAS and its kernels).
function M.header(title)
  print('# ' .. title .. ', ' .. os.date('!%Y-%m-%d %H:%M UTC'))
  print('# ' .. tostring(fused.config()))
end

-- PyTorch's side in the same run (../shared/bench/pytorch_lltm.py with args, or the script
-- FUSED_PYTORCH_BENCH names) where PyTorch is installed; otherwise a line saying why not.
function M.pytorch(args)
  local script = os.getenv('FUSED_PYTORCH_BENCH') or '../shared/bench/pytorch_lltm.py'
  local f = io.open(script, 'r')
  if not f then return print('# PyTorch: ' .. script .. ' not found; its columns are left out') end
  f:close()
  if os.execute('/usr/bin/python3 -c "import torch" >/dev/null 2>&1') ~= 0 then
    return print('# PyTorch: not installed here (python3 cannot import torch); its columns are left out')
  end
  print('# PyTorch: /usr/bin/python3 ' .. script .. ' ' .. args)
  io.stdout:flush()
  os.execute('/usr/bin/python3 ' .. script .. ' ' .. args)
end

ffi.cdef 'int mkfifo(const char *path, unsigned mode);'

-- PyTorch's side of a benchmark that alternates with it in one run: bench/<script> started in
-- python, talked to over a pipe ({version = its first line, ask(line) -> its answer line,
-- close()}), or nil with why not.
function M.torch_process(python, script)
  local p = io.popen(python .. ' -c "import torch" 2>&1')
  local out = p:read('*a')
  p:close()
  if out ~= '' then return nil, python .. ' cannot import torch' end
  local fifo = os.tmpname()
  os.remove(fifo)
  assert(ffi.C.mkfifo(fifo, tonumber('600', 8)) == 0, 'mkfifo failed')
  local dir = debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$')
  local w = io.popen(string.format('%s %s%s > %s', python, dir, script, fifo), 'w')
  local r = assert(io.open(fifo, 'r'))
  os.remove(fifo)
  local torch = { version = r:read('*l') }
  function torch.ask(line)
    w:write(line, '\n')
    w:flush()
    return r:read('*l')
  end
  function torch.close() w:close(); r:close() end
  return torch
end

-- Median and min of a list of samples (sorts it).
function M.median_min(samples)
  table.sort(samples)
  return samples[math.floor(#samples / 2) + 1], samples[1]
end

-- Best time in µs of f() over n calls after w warm-up calls.
function M.best_of(w, n, f)
  for _ = 1, w do f() end
  local best = math.huge
  for _ = 1, n do
    local t0 = M.now_us()
    f()
    best = math.min(best, M.now_us() - t0)
  end
  return best
end

-- The PyTorch tutorial's protocol for one LLTM step of nn[class] on device: time the forward
-- call, then the backward of new_h:sum() + new_c:sum() (grad_h = grad_c = ones), iters times
-- after warm calls; on the GPU each is synchronised. Returns {fwd_med, fwd_min, bwd_med,
-- bwd_min} in µs.
function M.time_cell_step(class, B, I, H, warm, iters, device)
  local sync = device == 'cuda' and fused.cuda.synchronize or function() end
  fused.manual_seed(0)
  local o = { device = device }
  local cell = fused.nn[class](I, H):to(device)
  local x, h, c = fused.randn({ B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
  local ones = fused.ones({ B, H }, o)
  local fw, bw = {}, {}
  collectgarbage()
  sync()
  for i = 1, warm + iters do
    local t0 = M.now_us()
    cell:forward(x, h, c)
    sync()
    local t1 = M.now_us()
    cell:backward(ones, ones)
    sync()
    local t2 = M.now_us()
    if i > warm then fw[#fw + 1], bw[#bw + 1] = t1 - t0, t2 - t1 end
  end
  local r = {}
  r.fwd_med, r.fwd_min = M.median_min(fw)
  r.bwd_med, r.bwd_min = M.median_min(bw)
  return r
end

-- GFLOP/s of a 1024x1024x1024 float32 matrix product on the CPU, at the current thread count.
function M.sgemm_gflops()
  local a, b = fused.randn({ 1024, 1024 }), fused.randn({ 1024, 1024 })
  local out = fused.empty({ 1024, 1024 })
  local us = M.best_of(1, 5, function() fused.C.fused_addmm(out, nil, a, b, 0, 1) end)
  return 2 * 1024 ^ 3 / us * 1e-3
end

return M
