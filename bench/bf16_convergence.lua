-- Does --precision bf16 train as float32 does? examples/train.lua for three seeds, the same
-- steps, in three ways: float32, bf16 products, and float64 (how far float32's own rounding
-- moves a run); and the float32 run's final model evaluated with bf16 products (what bfloat16
-- operands cost a model that float32 trained: the floor of the bf16 run's difference). Prints
-- each held-out loss after the last step, their relative differences to float32, and bf16's
-- difference as a fraction of the task's baseline.
--   luajit bench/bf16_convergence.lua [train.lua options: --task text --cell lstm --steps 2000]
-- --task text reads --data FILE, by default Debian's licence texts (/usr/share/common-licenses).
local here = debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$')
dofile(here .. 'checkout.lua')
local fused = require 'fused'
local checkpoint = require 'fused.train.checkpoint'
local train = dofile(here .. '../examples/train.lua')
local null = io.open('/dev/null', 'w')

local LICENCES = { 'Apache-2.0', 'Artistic', 'BSD', 'CC0-1.0', 'GFDL-1.2', 'GFDL-1.3', 'GPL-1',
                   'GPL-2', 'GPL-3', 'LGPL-2', 'LGPL-2.1', 'LGPL-3', 'MPL-1.1', 'MPL-2.0' }

-- The licence texts in one temporary file (removed at the end): its path and size.
local function licence_text()
  local path = os.tmpname()
  local out = assert(io.open(path, 'wb'))
  for _, name in ipairs(LICENCES) do
    local f = assert(io.open('/usr/share/common-licenses/' .. name, 'rb'))
    out:write(f:read('*a'))
    f:close()
  end
  local bytes = out:seek('end')
  out:close()
  return path, bytes
end

local extra, given = { ... }, {}
for _, a in ipairs(extra) do given[a] = true end
if not given['--task'] then table.insert(extra, 1, 'adding') table.insert(extra, 1, '--task') end
local shown, text = table.concat(extra, ' '), nil
if given['text'] and not given['--data'] then
  local bytes
  text, bytes = licence_text()
  extra[#extra + 1], extra[#extra + 2] = '--data', text
  shown = shown .. ' --data (the licence texts, ' .. bytes .. ' bytes)'
end

local function argv_of(seed, ...)
  local argv = { '--seed', tostring(seed), ... }
  for _, a in ipairs(extra) do argv[#argv + 1] = a end
  return argv
end

local function run(seed, ...)
  local argv = argv_of(seed, ...)
  local status, r = train.run(argv, { out = null, err = io.stderr })
  assert(status == 0, 'train.lua failed: ' .. table.concat(argv, ' '))
  return r
end

-- The held-out loss of the model saved in ck, with bf16 products.
local function evaluate_bf16(seed, ck)
  local task, model = train.build(argv_of(seed, '--precision', 'bf16'))
  model:load_state_dict(checkpoint.load(ck).model)
  return model:evaluate(task)
end

print(string.format('# train.lua %s, seeds 1-3, held-out loss after the last step (%s)',
                    shown, fused.config().cpu_capability))
print(string.format('%4s  %10s  %10s  %10s  %10s  %10s  %11s  %15s', 'seed', 'float32',
                    'bf16', 'float64', 'bf16/f32-1', 'f64/f32-1', 'f32@bf16-1', '|bf16-f32|/base'))
local ck = os.tmpname()
for seed = 1, 3 do
  local f = run(seed, '--precision', 'float32', '--checkpoint', ck)
  local b = run(seed, '--precision', 'bf16')
  local d = run(seed, '--dtype', 'float64')
  local e = evaluate_bf16(seed, ck)
  print(string.format('%4d  %10.6f  %10.6f  %10.6f  %+9.2f%%  %+9.2f%%  %+10.2f%%  %14.4f%%', seed,
                      f.heldout, b.heldout, d.heldout, (b.heldout / f.heldout - 1) * 100,
                      (d.heldout / f.heldout - 1) * 100, (e / f.heldout - 1) * 100,
                      math.abs(b.heldout - f.heldout) / f.baseline * 100))
end
os.remove(ck)
if text then os.remove(text) end
