-- fused.ext's costs: the first compile of an extension, a cached load in a new process, the
-- rebuild after one of its two sources changed (each load timed inside its own process, by
-- the clock around fused.ext.load); and the LLTM as a user cell (examples/custom_cell/lltm.c)
-- against the built-in one, training steps (forward + backward of Σ h_t), float32, T = 100,
-- one thread, the two alternating in rounds. Run: make bench-ext (docs/extending.md).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'

local function now_ms() return bench.now_us() * 1e-3 end
local cache = os.tmpname()
os.remove(cache)

-- The sources of examples/custom_op, copied so that one can be edited.
local src = cache .. '-src/'
os.execute('mkdir -p ' .. src .. ' && cp examples/custom_op/softplus.* ' .. src)

-- The load of softplus.c (and softplus.cu where nvcc is) in a new luajit, in ms.
local function timed_load()
  local p = io.popen(string.format([[LUA_PATH='lua/?.lua;lua/?/init.lua;;' luajit -e "
    local fused = require 'fused'
    local b = require 'bench.common'
    local t0 = b.now_us()
    local sources, cflags = {'%ssoftplus.h', '%ssoftplus.c'}, {}
    if fused.ext.has_cuda() then sources[3] = '%ssoftplus.cu' else cflags[1] = '-DSOFTPLUS_NO_CUDA' end
    fused.ext.load{name = 'softplus', sources = sources, cflags = cflags, cache_dir = '%s'}
    print((b.now_us() - t0) * 1e-3)"]], src, src, src, cache))
  local ms = tonumber(p:read('*a'))
  p:close()
  return ms
end

local first, cached = timed_load(), timed_load()
local f = io.open(src .. 'softplus.c', 'ab')
f:write('/* edited */\n')
f:close()
local rebuild = timed_load()
print(string.format('# fused.ext.load of examples/custom_op (%s): first compile %.0f ms, cached '
                    .. 'load %.1f ms, softplus.c changed %.0f ms', fused.ext.has_cuda() and
                    'softplus.c + softplus.cu' or 'softplus.c', first, cached, rebuild))

-- Built as fused.ext.cell builds it: the default flags and the capability's vector flags.
local user = fused.ext.cell { name = 'user_lltm', sources = { 'examples/custom_cell/lltm.c' },
                              step = 'lltm', gates = 3, state = 'hc', saved = 5, cache_dir = cache }
local F = fused.functional
local T, ROUNDS = 100, 5

local function step_ms(cell, B, I, H)
  fused.manual_seed(0)
  local xs, ones = fused.randn({ T, B, I }), fused.ones({ T, B, H })
  local w_ih, w_hh, b = fused.randn({ 3 * H, I }) * 0.1, fused.randn({ 3 * H, H }) * 0.1, fused.zeros({ 3 * H })
  local b_hh = cell ~= 'lltm' and fused.zeros({ 3 * H }) or nil
  local h0, c0 = fused.zeros({ B, H }), fused.zeros({ B, H })
  local samples, iters = {}, B * H < 10000 and 10 or 3
  for i = 1, iters + 1 do
    local t0 = now_ms()
    local _, _, _, ctx = F.rnn_forward(cell, xs, w_ih, w_hh, b, b_hh, h0, c0)
    F.rnn_backward(ctx, ones)
    if i > 1 then samples[#samples + 1] = now_ms() - t0 end
  end
  return (bench.median_min(samples))
end

fused.set_num_threads(1)
print(string.format('# LLTM training step, float32, T = %d, one thread: median ms of each round, '
                    .. 'built-in/user cell', T))
for _, cfg in ipairs({ { 16, 32, 128 }, { 32, 128, 256 } }) do
  local B, I, H = cfg[1], cfg[2], cfg[3]
  local ratios, line = {}, {}
  for r = 1, ROUNDS do
    local ours, theirs = step_ms('lltm', B, I, H), step_ms(user, B, I, H)
    ratios[r] = theirs / ours
    line[r] = string.format('%.1f/%.1f', ours, theirs)
  end
  table.sort(ratios)
  print(string.format('(B, I, H) = (%d, %d, %d): %s; user/built-in median %.2fx (min %.2fx, '
                      .. 'max %.2fx)', B, I, H, table.concat(line, ' '),
                      ratios[math.ceil(ROUNDS / 2)], ratios[1], ratios[ROUNDS]))
end
os.execute('rm -rf ' .. cache .. ' ' .. src)
