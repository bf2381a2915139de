-- Does --precision bf16 train as float32 does? examples/train.lua on the adding task for three
-- seeds in each precision, the same steps; prints each run's held-out MSE (over the task's
-- held-out set after the last step), the bf16 run's relative difference to float32's, and that
-- difference as a fraction of the task's baseline (1/6, what predicting the mean scores).
--   luajit bench/bf16_convergence.lua [more train.lua options: --cell lstm --steps 2000]
local here = debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$')
dofile(here .. 'checkout.lua')
local train = dofile(here .. '../examples/train.lua')
local null = io.open('/dev/null', 'w')

local extra = { ... }
print(string.format('# train.lua --task adding %s, seeds 1-3, held-out MSE after the last step',
                    #extra > 0 and table.concat(extra, ' ') or '(defaults)'))
print(string.format('%4s  %12s  %12s  %10s  %13s', 'seed', 'float32', 'bf16', 'bf16/f32-1',
                    '|diff|/base'))
for seed = 1, 3 do
  local result = {}
  for _, precision in ipairs({ 'float32', 'bf16' }) do
    local argv = { '--task', 'adding', '--seed', tostring(seed), '--precision', precision }
    for _, a in ipairs(extra) do argv[#argv + 1] = a end
    local status, r = train.run(argv, { out = null, err = io.stderr })
    assert(status == 0, 'train.lua failed: ' .. table.concat(argv, ' '))
    result[precision] = r.heldout
  end
  local f, b = result.float32, result.bf16
  print(string.format('%4d  %12.6f  %12.6f  %+9.1f%%  %12.4f%%', seed, f, b, (b / f - 1) * 100,
                      math.abs(b - f) * 6 * 100))
end
