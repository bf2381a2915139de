-- Linear cells (fused.cell.define{linear = true}), float32, one thread pinned to CPU 0:
--   - a minGRU layer's training step (nn.RNN over examples/cells/mingru.lua, no bias: forward,
--     backward into xs and the weight) at (B, T, H) = (16, 4096, 128) against minGRU-pytorch's
--     parallel log-space layer in PyTorch, eager and under torch.compile
--     (bench/linear_cells_torch.py, in the python FUSED_TORCH_PYTHON names; TORCH_MODES=eager
--     leaves torch.compile out);
--   - the SRU as a linear cell (examples/cells/sru.lua) against the SRU on the dense engine
--     (examples/cells/sru_dense.lua, which computes the unused W_hh h each step), training
--     steps at (B, I, H) = (16, 32, 128), T = 100, alternating.
-- Each figure is the best of REPEATS (default 3). Run: make bench-linear.
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'
local F = fused.cell

io.stdout:setvbuf('line')
local REPEATS = tonumber(os.getenv('REPEATS') or '') or 3
local PYTHON = os.getenv('FUSED_TORCH_PYTHON') or 'python3'
local MODES = os.getenv('TORCH_MODES') or 'eager,compile'
local DIR = debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$')
fused.set_num_threads(1)

local function cell(file) return F.define(dofile(DIR .. '../examples/cells/' .. file .. '.lua')(F)) end

-- Seconds of a training step of m over xs (its states zero), the best of REPEATS.
local function step_seconds(m, xs, d_hs)
  return bench.best_of(1, REPEATS, function()
    m:forward(xs)
    m:zeroGradParameters()
    m:backward(d_hs)
  end) * 1e-6
end

bench.header('minGRU layer training step, (B, T, H) = (16, 4096, 128), float32, one thread')
local B, T, H = 16, 4096, 128
fused.manual_seed(0)
local mingru = fused.nn.RNN(H, H, { cell = cell('mingru'), bias = false })
local xs, d_hs = fused.randn({ T, B, H }), fused.randn({ T, B, H })
local ours = step_seconds(mingru, xs, d_hs)
local p = io.popen(string.format('taskset -c 0 %s %slinear_cells_torch.py %d %d %d %d %s 2>/dev/null',
                                 PYTHON, DIR, B, T, H, REPEATS, MODES))
local torch, version = {}, nil
for line in p:lines() do
  local name, value = line:match('^(%S+) (%S+)$')
  if name == 'torch' then version = value
  elseif name and tonumber(value) then torch[name] = tonumber(value) end
end
p:close()
print(string.format('%-28s %10s %8s', 'figure', 'ms', 'ratio'))
print(string.format('%-28s %10.1f', 'fused (linear cell)', ours * 1e3))
for _, mode in ipairs({ 'eager', 'compile' }) do
  local t = torch['mingru_' .. mode]
  if t then
    print(string.format('%-28s %10.1f %7.2fx', 'minGRU-pytorch ' .. mode, t * 1e3, t / ours))
  else
    print(string.format('%-28s %10s', 'minGRU-pytorch ' .. mode, 'not run'))
  end
end
print('torch ' .. tostring(version))

bench.header('SRU training step, (B, I, H) = (16, 32, 128), T = 100, float32, one thread')
local sB, sI, sH, sT = 16, 32, 128, 100
local linear = fused.nn.RNN(sI, sH, { cell = cell('sru') })
local dense = fused.nn.RNN(sI, sH, { cell = cell('sru_dense') })
local sxs, sd = fused.randn({ sT, sB, sI }), fused.randn({ sT, sB, sH })
local lin_s, dense_s = math.huge, math.huge
for _ = 1, 3 do -- alternating
  lin_s = math.min(lin_s, step_seconds(linear, sxs, sd))
  dense_s = math.min(dense_s, step_seconds(dense, sxs, sd))
end
print(string.format('%-28s %10.2f', 'SRU linear (scan)', lin_s * 1e3))
print(string.format('%-28s %10.2f %7.2fx', 'SRU dense engine', dense_s * 1e3, dense_s / lin_s))
