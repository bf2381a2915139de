-- fused.cell.define{name, gates, state, step}: a cell of the engine from its equations. step
-- runs once, on symbols (graph.lua); its graph is differentiated (grad.lua), turned into C
-- (codegen.lua) and built and registered by fused.ext.cell, which caches the build: as C for
-- the CPU, and the same text as CUDA on the cell's first CUDA run.
local graph = require 'fused.cell.graph'
local grad = require 'fused.cell.grad'
local codegen = require 'fused.cell.codegen'
local options = require 'fused.options'
local hash = require 'fused.ext.hash'
local build = require 'fused.ext.build'
local lib = require 'fused.lib'
local clock = require 'fused.train.progress'

local FN = 'fused.cell.define'
local OPTIONS = { 'name', 'gates', 'state', 'step', 'cache_dir', 'verbose' }
local STATES = { h = { 'new h' }, hc = { 'new h', 'new c' } }

local function message(name, f, ...) return string.format('%s: %s: ' .. f, FN, name, ...) end

-- gx or gh: a list of the gates' symbols (so #gx, ipairs(gx) and unpack(gx) see every gate),
-- an error at the reading line for another key, and no new keys.
local function products(g, kind, gates)
  local list = {}
  for k = 1, gates do list[k] = graph.leaf(g, kind, k) end
  return setmetatable(list, {
    __index = function(_, k)
      error(string.format('%s[%s]: no such gate; gates = %d (%s[1] .. %s[%d])', kind,
                          tostring(k), gates, kind, kind, gates), 2)
    end,
    __newindex = function(_, k)
      error(string.format('%s[%s]: no such gate; gates = %d (%s[1] .. %s[%d])', kind,
                          tostring(k), gates, kind, kind, gates), 2)
    end,
  })
end

-- The step's results as the new state's nodes, or the error that says what is wrong.
local function states(g, name, state, results, n)
  local want = STATES[state]
  local expects = string.format("state '%s' expects %d: %s", state, #want, table.concat(want, ', '))
  if n == 0 then error(message(name, 'step returned nothing; %s', expects), 3) end
  if n ~= #want then
    error(message(name, 'step returned %d result%s; %s', n, n == 1 and '' or 's', expects), 3)
  end
  local inputs = state == 'hc' and 'gx, gh, h, c' or 'gx, gh, h'
  for i = 1, n do
    local v = results[i]
    if graph.is_node(v) and v.graph ~= g then
      error(message(name, "step result %d (%s) is a symbol of cell '%s'; a state must be an "
                    .. 'expression of %s', i, want[i], v.graph.name, inputs), 3)
    elseif type(v) == 'number' or (graph.is_node(v) and v.op == 'const') then
      error(message(name, 'step result %d (%s) is the number %s; a state must be an expression '
                    .. 'of %s', i, want[i], tostring(type(v) == 'number' and v or v.value), inputs), 3)
    elseif not graph.is_node(v) then
      error(message(name, 'step result %d (%s) is a %s; expected an expression of %s', i,
                    want[i], type(v), inputs), 3)
    end
  end
  return results
end

-- The generated source's file in the cache, named by its text: written once. Returns its path
-- and whether it was new.
local function write_source(dir, name, text, ext)
  local path = string.format('%s/%s-%s.%s', dir, name, hash.hex(hash.add(nil, text)), ext)
  if hash.read(path) == text then return path, false end
  build.write(FN, path, text)
  return path, true
end

-- Runs the step on the graph's symbols; returns its results and their count.
local function run_step(g, spec, gates, h, c)
  local results = { pcall(graph.within, g, spec.step, products(g, 'gx', gates),
                          products(g, 'gh', gates), h, c) }
  if not results[1] then error(message(spec.name, '%s', tostring(results[2])), 3) end
  return { unpack(results, 2, table.maxn(results)) }, table.maxn(results) - 1
end

-- A cell takes about a second to compile per this many lines of C (gcc -O3, 2 cores): a
-- larger one says that it is compiling.
local PROGRESS_LINES = 150

local defined = {} -- generated source -> cell: a definition registers once per process

return function(spec)
  spec = options.check(spec, FN, OPTIONS)
  local name = spec.name
  if type(name) ~= 'string' or not name:match('^[%a_][%w_]*$') then
    error(string.format("%s: option 'name' expected a C name (letters, digits, _), got %s", FN,
                        type(name) == 'string' and string.format('%q', name) or type(name)), 2)
  end
  if #name > lib.C.FUSED_CELL_NAME_MAX then -- the registry's bound, checked before compiling
    error(string.format("%s: option 'name' expected at most %d characters, got %d (%s)", FN,
                        lib.C.FUSED_CELL_NAME_MAX, #name, name), 2)
  end
  local gates = spec.gates
  if type(gates) ~= 'number' or gates ~= math.floor(gates) or gates < 1 or gates > 64 then
    error(message(name, "option 'gates' expected an integer in 1..64, got %s", tostring(gates)), 2)
  end
  if not STATES[spec.state] then
    error(message(name, "option 'state' expected 'h' or 'hc', got %s", tostring(spec.state)), 2)
  end
  if type(spec.step) ~= 'function' then
    error(message(name, "option 'step' expected a function, got %s", type(spec.step)), 2)
  end
  local has_c = spec.state == 'hc'

  local g = graph.new(name)
  local h, c = graph.leaf(g, 'h'), has_c and graph.leaf(g, 'c') or nil
  local results, n = run_step(g, spec, gates, h, c)
  local outputs = states(g, name, spec.state, results, n)
  -- A step that reads anything but its arguments (math.random, a counter) would be frozen at
  -- one value unseen: a second run must give the same nodes.
  local again = run_step(g, spec, gates, h, c)
  for i = 1, n do
    if not rawequal(again[i], outputs[i]) then
      error(message(name, 'the step gave other equations when run again (result %d); it must '
                    .. 'compute from gx, gh, h and c alone, not from a random number, a clock or '
                    .. 'a counter', i), 2)
    end
  end

  local _, reaches = graph.reachable(outputs)
  for k = 1, gates do
    if not reaches[graph.leaf(g, 'gx', k)] and not reaches[graph.leaf(g, 'gh', k)] then
      io.stderr:write(string.format('%s: %s: warning: gate %d is unused (neither gx[%d] nor '
                                    .. 'gh[%d] reaches the new state)\n', FN, name, k, k, k))
    end
  end

  local seeds = { { outputs[1], graph.leaf(g, 'dh') } }
  if has_c then seeds[2] = { outputs[2], graph.leaf(g, 'dc') } end
  local ok, adj = pcall(grad.backward, g, seeds) -- its nodes count to the bound too
  if not ok then error(message(name, '%s', tostring(adj)), 2) end
  local zero = graph.const(g, 0)
  local grads = { gx = {}, gh = {}, h = adj[h] or zero, c = c and (adj[c] or zero) }
  for k = 1, gates do
    grads.gx[k] = adj[graph.leaf(g, 'gx', k)] or zero
    grads.gh[k] = adj[graph.leaf(g, 'gh', k)] or zero
  end
  local step = 'cell_' .. name
  local source, L = codegen.generate { name = name, step = step, gates = gates, has_c = has_c,
                                       outputs = outputs, grads = grads }
  if L.saved > lib.C.FUSED_CELL_SAVED_MAX then
    error(message(name, 'backward reads %d values of the step per element (its activations), '
                  .. 'more than the %d a cell may save (%d blocks, h_prev among them)',
                  L.saved - 1, lib.C.FUSED_CELL_SAVED_MAX - 1, lib.C.FUSED_CELL_SAVED_MAX), 2)
  end
  if defined[source] then
    if spec.verbose then print(FN .. ' ' .. name .. ': reusing the cell registered before') end
    return defined[source]
  end

  local ext = require 'fused.ext'
  local dir = require('fused.ext.cache').extension_folder(FN, spec, name)
  -- one text for both: compiled as C for the CPU, as CUDA for the device (on a first CUDA run)
  local c_path, new = write_source(dir, name, source, 'c')
  local _, lines = source:gsub('\n', '')
  local started = clock.now()
  local say = new and lines > PROGRESS_LINES
  if say then
    io.stderr:write(string.format('%s: %s: compiling %d lines of C (%d nodes)...\n', FN, name,
                                  lines, #g.nodes))
  end
  local cell = ext.cell { name = name, sources = { c_path },
                          cuda_sources = { (write_source(dir, name, source, 'cu')) }, step = step,
                          gates = gates, state = spec.state, saved = L.saved, h_prev = L.h_prev,
                          d_ih = L.d_ih, d_hh = L.d_hh, cache_dir = spec.cache_dir,
                          verbose = spec.verbose }
  if say then
    io.stderr:write(string.format('%s: %s: compiled in %.1f s\n', FN, name, clock.now() - started))
  end
  cell.source = source
  defined[source] = cell
  return cell
end
