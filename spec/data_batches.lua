-- Prints the batches of every data path, one line per tensor ("name<TAB>v1 v2 ..." in %.17g), for
-- spec/data_gc_spec.lua. Run as `luajit spec/data_batches.lua TEXT_FILE [forced]`; forced
-- runs a full collection every 1,000 VM instructions inside them (with the JIT off, since
-- compiled code calls no hooks), so memory that is not owned by what reads it is freed under it.
local here = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
local fused = require 'fused'
local train = dofile(here .. '../examples/train.lua')

local text_path, forced = arg[1], arg[2] == 'forced'
local F64 = { seed = 3, dtype = 'float64', device = 'cpu' }
local function task(name, opts)
  for k, v in pairs(F64) do opts[k] = v end
  return require('fused.data.' .. name).new(opts)
end

local function sink()
  local parts = {}
  return { write = function(self, ...) for _, s in ipairs({ ... }) do parts[#parts + 1] = tostring(s) end return self end,
           flush = function() end, text = function() return table.concat(parts) end }
end

if forced then
  jit.off()
  debug.sethook(function() collectgarbage() end, '', 1000)
end
-- The defaults' training and held-out sizes: a batch's draws stay below malloc's mmap threshold
-- (freed memory is reused), the adding task's held-out draws go above it (freed memory is
-- unmapped). The text batch has 256 draws, since MALLOC_PERTURB_ skips blocks under 1 KB.
local made = {}
for _, t in ipairs({ task('adding', { seq_len = 100, batch = 64, heldout = 1000 }),
                     task('copy', { seq_len = 100, batch = 64, heldout = 256 }),
                     task('text', { path = text_path, seq_len = 100, batch = 256 }) }) do
  local xs, ys = t:batch(1)
  made[#made + 1] = { t.name .. ' batch inputs', xs }
  made[#made + 1] = { t.name .. ' batch targets', ys }
  xs, ys = t:heldout()
  made[#made + 1] = { t.name .. ' held-out inputs', xs }
  made[#made + 1] = { t.name .. ' held-out targets', ys }
end
-- fused.data.graph's communities and node split (fused's generator, seeded), its draws in
-- memory that their readers own.
local graph = require 'fused.data.graph'
fused.manual_seed(5)
local g = graph.stochastic_block_model({ nodes = 2000, degree = 4, features = 4 })
local train_nodes, test_nodes = graph.split(2000, { train = 100, test = 100 })
made[#made + 1] = { 'graph labels', g.labels }
made[#made + 1] = { 'graph train nodes', train_nodes }
made[#made + 1] = { 'graph test nodes', test_nodes }
-- examples/train.lua's text samples, drawn from their own stream.
local out = sink()
local status = train.run({ '--task', 'text', '--data', text_path, '--hidden', '8', '--seq-len', '20',
                           '--batch', '4', '--steps', '2', '--sample-every', '1', '--sample-len', '300',
                           '--device', 'cpu' }, { out = out })
debug.sethook()
assert(status == 0, out.text())

local function flat(x, list)
  if type(x) ~= 'table' then list[#list + 1] = string.format('%.17g', x); return list end
  for _, v in ipairs(x) do flat(v, list) end
  return list
end
for _, entry in ipairs(made) do
  io.write(entry[1], '\t', table.concat(flat(entry[2]:totable(), {}), ' '), '\n')
end
local n = 0
for sample in out.text():gmatch('%-%-%- sample at step %d+ %(temperature 1%)\n(.-)\n%-%-%-') do
  n = n + 1
  local codes = {}
  for i = 1, #sample do codes[i] = sample:byte(i) end
  io.write('train.lua sample ', n, '\t', table.concat(codes, ' '), '\n')
end
