-- fused's sLSTM (examples/cells/slstm.lua on nn.RNN with heads) against xLSTM's vanilla sLSTM
-- loop in PyTorch (bench/slstm_torch.py, in the python FUSED_TORCH_PYTHON names, driven over a
-- pipe), eager and under torch.compile: the ms of a float32 training step (forward from zero
-- states over T, backward of every step's h with d_hs = ones to the parameters and the input)
-- at (B, T, H, NH) = (8, 256, 128, 4) and (64, 256, 512, 4), input size H, one thread, the
-- process pinned by make's taskset (PyTorch's process inherits it). The contestants alternate,
-- round after round; each figure is the min over the rounds (the other vCPU's load moves one
-- thread's speed within minutes: only ratios taken side by side mean anything). Both sides
-- run the same input GEMMs (xLSTM's layer makes Wx before its loop too). The issue's targets:
-- 10x eager and 3x compiled at the first size, 3x and 1.5x at the second. Run: make
-- bench-slstm (ROUNDS=n).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'

io.stdout:setvbuf('line')
local ROUNDS = tonumber(os.getenv('ROUNDS') or '') or 3
local PYTHON = os.getenv('FUSED_TORCH_PYTHON') or 'python3'
local CONFIGS = { { 8, 256, 128, 4, eager = 10, compile = 3 },
                  { 64, 256, 512, 4, eager = 3, compile = 1.5 } }

fused.set_num_threads(1)
local torch, why_not = bench.torch_process(PYTHON, 'slstm_torch.py')
local cell = fused.cell.define(dofile('examples/cells/slstm.lua')(fused.cell))

-- The contestants at one size: {name, run() -> ms of a step}.
local function contestants(B, T, H, NH)
  fused.manual_seed(0)
  local m = fused.nn.RNN(H, H, { cell = cell, heads = NH })
  local xs, ones = fused.randn({ T, B, H }), fused.ones({ T, B, H })
  local list = { { 'fused', function()
    local t0 = bench.now_us()
    m:forward(xs)
    m:backward(ones)
    return (bench.now_us() - t0) * 1e-3
  end } }
  for _, mode in ipairs(torch and { 'eager', 'compile' } or {}) do
    list[#list + 1] = { mode, function()
      return tonumber(torch.ask(string.format('step %s %d %d %d %d 1', mode, B, T, H, NH)))
    end }
  end
  return list
end

bench.header(string.format('sLSTM training step against xLSTM\'s vanilla loop in PyTorch, float32, '
                           .. '1 thread, min of %d alternating rounds', ROUNDS))
print(torch and string.format('# PyTorch %s (%s), torch.set_num_threads(1)', torch.version, PYTHON)
      or '# PyTorch: absent (' .. why_not .. '; FUSED_TORCH_PYTHON names another python)')
if torch then torch.ask('threads 1') end
print(string.format('%4s %4s %4s %3s  %10s %12s %12s  %13s %13s', 'B', 'T', 'H', 'NH', 'fused ms',
                    'eager ms', 'compiled ms', 'vs eager', 'vs compiled'))
for _, c in ipairs(CONFIGS) do
  local B, T, H, NH = c[1], c[2], c[3], c[4]
  local list = contestants(B, T, H, NH)
  local best = {}
  for i, k in ipairs(list) do k[2](); best[i] = math.huge end -- warm up (and compile)
  for _ = 1, ROUNDS do
    for i, k in ipairs(list) do best[i] = math.min(best[i], k[2]()) end
  end
  local function ratio(i, target)
    return best[i] and string.format('%6.1fx (%3gx)', best[i] / best[1], target) or '-'
  end
  print(string.format('%4d %4d %4d %3d  %10.1f %12s %12s  %13s %13s', B, T, H, NH, best[1],
                      best[2] and string.format('%.1f', best[2]) or '-',
                      best[3] and string.format('%.1f', best[3]) or '-',
                      ratio(2, c.eager), ratio(3, c.compile)))
end
print('# (target) in brackets: the issue\'s floor for each ratio')
if torch then torch.close() end
