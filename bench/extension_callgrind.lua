-- The workload whose instructions docs/extending.md counts: N LLTM training steps (forward +
-- backward of Σ h_t, float32, one thread) of the built-in cell or the user one
-- (examples/custom_cell/lltm.c), at (B, I, H) over T steps (default 100). Instruction counts do not swing with the load of
-- a shared machine, as times do:
--   LUA_PATH='lua/?.lua;lua/?/init.lua;;' OMP_NUM_THREADS=1 valgrind --tool=callgrind \
--     luajit bench/extension_callgrind.lua user 16 32 128 20
--   callgrind_annotate --inclusive=yes callgrind.out.<pid>
-- Run it once outside valgrind first, so that the user cell's build is cached.
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local F = fused.functional

local which, B, I, H = arg[1], tonumber(arg[2]), tonumber(arg[3]), tonumber(arg[4])
local N, T = tonumber(arg[5] or 20), tonumber(arg[6] or 100)
if (which ~= 'builtin' and which ~= 'user') or not (B and I and H and N and T) then
  error('usage: luajit bench/extension_callgrind.lua builtin|user B I H [N [T]]')
end
fused.set_num_threads(1)
local cell = which == 'user' and fused.ext.cell {
  name = 'user_lltm', sources = { 'examples/custom_cell/lltm.c' }, step = 'lltm', gates = 3,
  state = 'hc', saved = 5 } or 'lltm'

fused.manual_seed(0)
local xs, ones = fused.randn({ T, B, I }), fused.ones({ T, B, H })
local w_ih, w_hh = fused.randn({ 3 * H, I }) * 0.1, fused.randn({ 3 * H, H }) * 0.1
local b_ih, b_hh = fused.zeros({ 3 * H }), which == 'user' and fused.zeros({ 3 * H }) or nil
local h0, c0 = fused.zeros({ B, H }), fused.zeros({ B, H })
for _ = 1, N do
  local _, _, _, ctx = F.rnn_forward(cell, xs, w_ih, w_hh, b_ih, b_hh, h0, c0)
  F.rnn_backward(ctx, ones)
end
