-- Cells from fused.cell.define against the built-in ones: the LSTM, GRU and LLTM of
-- examples/cells/ (state 'hc' or 'h'), the same equations with the state as a list of names
-- (state {'h', 'c'}: step(gx, gh, s, p) returning a table), and nn's, training steps (forward + backward of Σ h_t) through
-- fused.functional.rnn_forward/backward, float32, T = 50, one thread, the two alternating in
-- rounds. Run: make bench-cell (docs/extending.md).
dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local fused = require 'fused'
local bench = require 'bench.common'
local F = fused.functional
local cache = os.tmpname()
os.remove(cache)

local T, ROUNDS = 50, 5
local function step_ms(cell, gates, b_hh, B, I, H)
  fused.manual_seed(0)
  local xs, ones = fused.randn({ T, B, I }), fused.ones({ T, B, H })
  local w_ih, w_hh = fused.randn({ gates * H, I }) * 0.1, fused.randn({ gates * H, H }) * 0.1
  local b = fused.zeros({ gates * H })
  local h0, c0 = fused.zeros({ B, H }), fused.zeros({ B, H })
  if not (type(cell) == 'table' and cell.has_c or cell == 'lstm' or cell == 'lltm') then c0 = nil end
  local samples, iters = {}, B * H < 10000 and 10 or 3
  for i = 1, iters + 1 do
    local t0 = bench.now_us()
    local _, _, _, ctx = F.rnn_forward(cell, xs, w_ih, w_hh, b, b_hh and fused.zeros({ gates * H }) or nil, h0, c0)
    F.rnn_backward(ctx, ones)
    if i > 1 then samples[#samples + 1] = (bench.now_us() - t0) * 1e-3 end
  end
  return (bench.median_min(samples))
end

-- def's equations with its state as a list of names.
local function as_list(def)
  local step = def.step
  return { name = def.name .. '_list', gates = def.gates, cache_dir = cache,
           state = def.state == 'hc' and { 'h', 'c' } or { 'h' },
           step = function(gx, gh, s)
             local h, c = step(gx, gh, s.h, def.state == 'hc' and s.c or nil)
             return { h = h, c = c }
           end }
end

fused.set_num_threads(1)
bench.header(string.format('fused.cell.define against the built-in cells: training step, float32, '
                           .. 'T = %d, one thread, %d rounds', T, ROUNDS))
print('| cell | (B, I, H) | built-in ms | defined ms | list ms | defined / built-in: median '
      .. '(min, max) | list / built-in: median (min, max) |')
print('|---|---|---|---|---|---|---|')
for _, c in ipairs({ { 'lstm', 4 }, { 'gru', 3 }, { 'lltm', 3 } }) do
  local def = dofile('examples/cells/' .. c[1] .. '.lua')(fused.cell)
  def.cache_dir = cache
  local defined, listed = fused.cell.define(def), fused.cell.define(as_list(def))
  for _, cfg in ipairs({ { 16, 32, 128 }, { 64, 256, 512 } }) do
    local B, I, H = cfg[1], cfg[2], cfg[3]
    local ratios, list_ratios, ours_ms, theirs_ms, list_ms = {}, {}, {}, {}, {}
    for r = 1, ROUNDS do
      -- the built-in LLTM has one bias; the others and every defined cell two
      ours_ms[r] = step_ms(c[1], c[2], c[1] ~= 'lltm', B, I, H)
      theirs_ms[r] = step_ms(defined, c[2], true, B, I, H)
      list_ms[r] = step_ms(listed, c[2], true, B, I, H)
      ratios[r], list_ratios[r] = theirs_ms[r] / ours_ms[r], list_ms[r] / ours_ms[r]
    end
    table.sort(ratios)
    table.sort(list_ratios)
    local mid = math.ceil(ROUNDS / 2)
    print(string.format('| %s | (%d, %d, %d) | %.2f | %.2f | %.2f | %.3fx (%.3f, %.3f) | %.3fx '
                        .. '(%.3f, %.3f) |', c[1], B, I, H, (bench.median_min(ours_ms)),
                        (bench.median_min(theirs_ms)), (bench.median_min(list_ms)), ratios[mid],
                        ratios[1], ratios[ROUNDS], list_ratios[mid], list_ratios[1],
                        list_ratios[ROUNDS]))
    io.stdout:flush()
  end
end
os.execute('rm -rf ' .. cache)
