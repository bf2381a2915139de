-- One round of the speed comparison between two checkouts (scripts/bench-compare.sh): the
-- LLTM cell step (forward + backward, nn.LLTMCell) and a sequence training step (nn.LLTM,
-- T = 100, forward + backward; nn.LSTM and nn.GRU too), min µs, in DTYPE (an environment
-- variable, float32 by default), on one thread or on THREADS (another). It uses only the module API both checkouts share, so the
-- same file times either; the tree is chosen by LUA_PATH.
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'

local threads = tonumber(os.getenv('THREADS') or 1)
fused.set_num_threads(threads)
local o = { dtype = os.getenv('DTYPE') or 'float32' }
local ROUNDS = tonumber(arg[1]) or 200

local function cell_step(B, I, H, n)
  fused.manual_seed(0)
  local cell = fused.nn.LLTMCell(I, H, o)
  local x, h, c = fused.randn({ B, I }, o), fused.randn({ B, H }, o), fused.randn({ B, H }, o)
  local ones = fused.ones({ B, H }, o)
  return bench.best_of(math.floor(n / 10) + 1, n, function()
    cell:forward(x, h, c)
    cell:backward(ones, ones)
  end)
end

local function seq_step(T, B, I, H, n, cell)
  fused.manual_seed(0)
  local rnn = fused.nn[cell or 'LLTM'](I, H, o)
  local xs, d_hs = fused.randn({ T, B, I }, o), fused.randn({ T, B, H }, o)
  return bench.best_of(2, n, function()
    rnn:forward(xs)
    rnn:backward(d_hs)
  end)
end

local n = math.floor(ROUNDS / 20)
print(string.format('thr %d cell(16,32,128) %.1f cell(64,256,512) %.1f seq(100,16,32,128) %.1f '
                    .. 'lstm(100,16,32,128) %.1f gru(100,16,32,128) %.1f', threads,
                    cell_step(16, 32, 128, ROUNDS), cell_step(64, 256, 512, math.floor(ROUNDS / 10)),
                    seq_step(100, 16, 32, 128, n), seq_step(100, 16, 32, 128, n, 'LSTM'),
                    seq_step(100, 16, 32, 128, n, 'GRU')))
