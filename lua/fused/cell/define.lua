-- fused.cell.define{name, gates, state, step[, params, init, output]}: a cell of the engine
-- from its equations. step
-- runs once, on symbols (graph.lua); its graph is differentiated (grad.lua), turned into C
-- (codegen.lua) and built and registered by fused.ext.cell, which caches the build: as C for
-- the CPU, and the same text as CUDA on the cell's first CUDA run.
local graph = require 'fused.cell.graph'
local grad = require 'fused.cell.grad'
local codegen = require 'fused.cell.codegen'
local linear = require 'fused.cell.linear'
local options = require 'fused.options'
local hash = require 'fused.ext.hash'
local build = require 'fused.ext.build'
local lib = require 'fused.lib'
local rnn = require 'fused.functional.rnn'
local clock = require 'fused.train.progress'

local FN = 'fused.cell.define'
local OPTIONS = { 'name', 'gates', 'state', 'step', 'params', 'init', 'output', 'linear',
                  'cache_dir', 'verbose' }
local STATES = { h = { 'new h' }, hc = { 'new h', 'new c' } }
local INITS = { zeros = true, ones = true, uniform = true }
-- C's keywords (C11, and C++'s, which the CUDA source is read as): no state, parameter or cell
-- may take one as its name.
local KEYWORDS = {}
for w in ([[auto break case char const continue default do double else enum extern float for
  goto if inline int long register restrict return short signed sizeof static struct switch
  typedef union unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic
  _Generic _Noreturn _Static_assert _Thread_local bool class delete false friend mutable
  namespace new operator private protected public template this throw true try typename using
  virtual]]):gmatch('%S+') do KEYWORDS[w] = true end

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
  if n == 0 then error(message(name, 'step returned nothing; %s', expects), 4) end
  if n ~= #want then
    error(message(name, 'step returned %d result%s; %s', n, n == 1 and '' or 's', expects), 4)
  end
  local inputs = state == 'hc' and 'gx, gh, h, c' or 'gx, gh, h'
  for i = 1, n do
    local v = results[i]
    if graph.is_node(v) and v.graph ~= g then
      error(message(name, "step result %d (%s) is a symbol of cell '%s'; a state must be an "
                    .. 'expression of %s', i, want[i], v.graph.name, inputs), 4)
    elseif type(v) == 'number' or (graph.is_node(v) and v.op == 'const') then
      error(message(name, 'step result %d (%s) is the number %s; a state must be an expression '
                    .. 'of %s', i, want[i], tostring(type(v) == 'number' and v or v.value), inputs), 4)
    elseif not graph.is_node(v) then
      error(message(name, 'step result %d (%s) is a %s; expected an expression of %s', i,
                    want[i], type(v), inputs), 4)
    end
  end
  return results
end

-- A list form's results: a table of the new states by name, in the states' order.
-- extras: for a linear cell, the names of its computed outputs (-> true), each set to its node.
local function named_states(g, name, names, results, n, inputs, extras)
  inputs = inputs or 'gx, gh, s, p'
  local t = results[1]
  if n ~= 1 or type(t) ~= 'table' or graph.is_node(t) then
    error(message(name, 'step returned %s; a step of state {%s} returns a table of the new '
                  .. 'states by name', n == 0 and 'nothing' or n .. ' result' .. (n == 1 and
                  ' (a ' .. (graph.is_node(t) and 'symbol' or type(t)) .. ')' or 's'),
                  "'" .. table.concat(names, "', '") .. "'"), 4)
  end
  local known, new = {}, {}
  for i, s in ipairs(names) do
    known[s] = true
    local v = t[s]
    if v == nil then
      error(message(name, "the step returned no state '%s' (it must return every state: %s)", s,
                    table.concat(names, ', ')), 4)
    elseif graph.is_node(v) and v.graph ~= g then
      error(message(name, "state '%s' is a symbol of cell '%s'; a state must be an expression of "
                    .. '%s', s, v.graph.name, inputs), 4)
    elseif type(v) == 'number' or (graph.is_node(v) and v.op == 'const') then
      error(message(name, "state '%s' is the number %s; a state must be an expression of %s", s,
                    tostring(type(v) == 'number' and v or v.value), inputs), 4)
    elseif not graph.is_node(v) then
      error(message(name, "state '%s' is a %s; expected an expression of %s", s,
                    graph.is_condition(v) and 'comparison' or type(v), inputs), 4)
    end
    new[i] = v
  end
  for k, v in pairs(t) do
    if extras and extras[k] then
      if not graph.is_node(v) or v.graph ~= g or v.op == 'const' then
        error(message(name, "output '%s' is a %s; expected an expression of %s", tostring(k),
                      graph.is_node(v) and (v.op == 'const' and 'number' or 'symbol of another '
                      .. 'cell') or type(v), inputs), 4)
      end
      extras[k] = v
    elseif not known[k] then
      error(message(name, "the step returned '%s', which is no state (state = {%s})%s",
                    tostring(k), table.concat(names, ', '), extras and ' nor output' or ''), 4)
    end
  end
  for k, v in pairs(extras or {}) do
    if v == true then
      error(message(name, "the step returned no output '%s' (option 'output' names it)", k), 4)
    end
  end
  return new
end

-- A list of distinct C names (what: 'state' or 'params'), none a C keyword nor in taken.
local function names_option(name, what, list, taken, level)
  if type(list) ~= 'table' or #list == 0 then
    error(message(name, "option '%s' expected a list of names, got %s", what, type(list)), level + 1)
  end
  local seen = {}
  for i, v in ipairs(list) do
    if type(v) ~= 'string' or not v:match('^[%a_][%w_]*$') or #v > 32 then
      error(message(name, "option '%s' expected C names (letters, digits, _; at most 32), got %s "
                    .. 'at %d', what, type(v) == 'string' and string.format('%q', v) or type(v),
                    i), level + 1)
    end
    if KEYWORDS[v] then
      error(message(name, "option '%s': '%s' is a C keyword (the generated C names its "
                    .. 'variables after the %s)', what, v, what), level + 1)
    end
    if seen[v] or taken[v] then
      error(message(name, "option '%s': the name '%s' is taken (%s)", what, v,
                    seen[v] and 'twice in the list' or taken[v]), level + 1)
    end
    seen[v] = 'a state'
  end
  for k in pairs(list) do
    if type(k) ~= 'number' or k > #list then
      error(message(name, "option '%s' expected a list, got the key %s", what, tostring(k)), level + 1)
    end
  end
  return seen
end

-- The step's names by name (s.c, p.w_ci): an error at the reading line for another, no new ones.
local function by_name(what, list)
  return setmetatable(list, {
    __index = function(_, k)
      error(string.format("%s.%s: no such %s (%s)", what, tostring(k),
                          what == 's' and 'state' or 'parameter', #list.names > 0
                          and table.concat(list.names, ', ') or "the cell has none: option "
                          .. "'params' names them"), 2)
    end,
    __newindex = function(_, k)
      error(string.format("%s.%s: the step's %s are read-only", what, tostring(k),
                          what == 's' and 'states' or 'parameters'), 2)
    end,
  })
end

-- The generated source's file in the cache, named by its text: written once. Returns its path
-- and whether it was new.
local function write_source(dir, name, text, ext)
  local path = string.format('%s/%s-%s.%s', dir, name, hash.hex(hash.add(nil, text)), ext)
  if hash.read(path) == text then return path, false end
  build.write(FN, path, text)
  return path, true
end

-- Runs the step on the graph's symbols (after gx and gh: h[, c], or the states, parameters
-- and x by name; a linear cell's: gx, s, p, x, reset); returns its results and their count.
local function run_step(g, spec, gates, ...)
  local args = { products(g, 'gx', gates) }
  if not spec.linear then args[2] = products(g, 'gh', gates) end
  local n, extra = #args, select('#', ...)
  for i = 1, extra do args[n + i] = (select(i, ...)) end
  local results = { pcall(graph.within, g, spec.step, unpack(args, 1, n + extra)) }
  if not results[1] then error(message(spec.name, '%s', tostring(results[2])), 4) end
  return { unpack(results, 2, table.maxn(results)) }, table.maxn(results) - 1
end

-- A cell takes about a second to compile per this many lines of C (gcc -O3, 2 cores): a
-- larger one says that it is compiling.
local PROGRESS_LINES = 150

local defined = {} -- generated source -> cell: a definition registers once per process

-- A linear cell (linear.lua): its coefficients' C, built by fused.ext.load; the spec that
-- fused.nn.RNN runs through the scan engine (nn/linear_layer.lua).
local function define_linear(d)
  local ok, parts = pcall(linear.analyse, d)
  if not ok then error(parts, 3) end
  local S, P, name = #d.names, #d.params, d.name
  local symbol = 'linear_' .. name
  local source, cdef, cuda_cdef = linear.generate {
    name = name, symbol = symbol, gates = d.gates, S = S,
    P = P, A = parts.A, b = parts.b, d_gx = parts.d_gx, d_p = parts.d_p, d_x = parts.d_x,
    outputs = parts.outputs }
  local inits = {}
  for _, v in ipairs(d.params) do inits[#inits + 1] = v .. '=' .. (d.init[v] or 'uniform') end
  local key = source .. '\0' .. table.concat(inits, ',') .. '\0'
              .. table.concat(d.output_names, ',')
  if defined[key] then return defined[key] end
  local dir = require('fused.ext.cache').extension_folder(FN, d.spec, name)
  local c_path = write_source(dir, symbol, source, 'c')
  local namespace = require('fused.ext').load { name = symbol, sources = { c_path }, cdef = cdef,
                                                cache_dir = d.spec.cache_dir,
                                                verbose = d.spec.verbose }
  local cuda_namespace
  local function cuda() -- the same text compiled as CUDA, on the cell's first CUDA run
    cuda_namespace = cuda_namespace or require('fused.ext').load {
      name = symbol .. '_cuda', sources = { (write_source(dir, symbol, source, 'cu')) },
      cdef = cuda_cdef, cache_dir = d.spec.cache_dir, verbose = d.spec.verbose }
    return cuda_namespace
  end
  local G = d.gates
  local cell = linear.functions(namespace, cuda, symbol, S, P,
                                function(gx) return gx:size(2) / G end, parts)
  cell.name, cell.linear, cell.gates, cell.states, cell.params = name, true, G, d.names, d.params
  cell.init, cell.output, cell.outputs, cell.output_index = d.init, d.output_names, #d.outputs,
                                                            d.outputs
  cell.reads_x = parts.d_x ~= nil or (parts.outputs and parts.outputs.d_x ~= nil) or false
  cell.has_c, cell.source, cell.computes_outputs = S > 1, source, parts.outputs ~= nil
  defined[key] = cell
  return cell
end

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
  if KEYWORDS[name] then
    error(string.format("%s: option 'name' expected a C name, got the C keyword '%s'", FN, name), 2)
  end
  if rnn.builtin_cells[name] then -- nn's repr, the engine's errors
    error(string.format("%s: option 'name': '%s' is a built-in cell's name; give yours another",
                        FN, name), 2)
  end
  -- the states: 'h' or 'hc' (the step takes h[, c] and returns them), or a list of names (the
  -- step takes s and p by name and returns a table); the first is the one the recurrent
  -- product reads
  local list = type(spec.state) == 'table'
  if spec.linear ~= nil and type(spec.linear) ~= 'boolean' then
    error(message(name, "option 'linear' expected a boolean, got %s", type(spec.linear)), 2)
  end
  if spec.linear and not list then
    error(message(name, "option 'linear' takes a state given as a list of names (state = {'h'}), "
                  .. "got state '%s'", tostring(spec.state)), 2)
  end
  if not list and not STATES[spec.state] then
    error(message(name, "option 'state' expected 'h', 'hc' or a list of names ({'h', 'c', "
                  .. "'n', 'm'}), got %s", tostring(spec.state)), 2)
  end
  if type(spec.step) ~= 'function' then
    error(message(name, "option 'step' expected a function, got %s", type(spec.step)), 2)
  end
  local names = list and spec.state or (spec.state == 'hc' and { 'h', 'c' } or { 'h' })
  local taken = list and names_option(name, 'state', names, {}, 2) or {}
  local params = {}
  if spec.params ~= nil then
    if not list then
      error(message(name, "option 'params' takes a state given as a list of names (state = "
                    .. "{'h', 'c'}), got state '%s'", spec.state), 2)
    end
    names_option(name, 'params', spec.params, taken, 2)
    params = spec.params
  end
  local init = {}
  if spec.init ~= nil then
    if type(spec.init) ~= 'table' then
      error(message(name, "option 'init' expected a table {param = 'zeros' | 'ones' | "
                    .. "'uniform'}, got %s", type(spec.init)), 2)
    end
    local known = {}
    for _, v in ipairs(params) do known[v] = true end
    for k, v in pairs(spec.init) do
      if not known[k] then
        error(message(name, "option 'init': '%s' is no parameter (params = {%s})", tostring(k),
                      table.concat(params, ', ')), 2)
      end
      if not INITS[v] then
        error(message(name, "option 'init': %s expected 'zeros', 'ones' or 'uniform', got %s", k,
                      tostring(v)), 2)
      end
      init[k] = v
    end
  end
  -- the states the layer outputs, side by side (default: the first)
  local outputs, output_names, computed = { 1 }, { names[1] }, {}
  if spec.output ~= nil then
    output_names = type(spec.output) == 'table' and spec.output or { spec.output }
    outputs = {}
    local index, seen = {}, {}
    for i, s in ipairs(names) do index[s] = i end
    for k, s in ipairs(output_names) do
      -- a linear cell's output may also be an expression the step returns (the SRU's h)
      if spec.linear and not index[s] and not seen[s] and type(s) == 'string' and
          s:match('^[%a_][%w_]*$') and not KEYWORDS[s] and not taken[s] then
        index[s] = s
        computed[s] = true
      end
      if not index[s] or seen[s] then
        error(message(name, "option 'output' expected a state's name or a list of distinct ones "
                      .. '(%s), got %s', table.concat(names, ', '),
                      seen[s] and "'" .. s .. "' twice" or tostring(s)), 2)
      end
      seen[s], outputs[k] = true, index[s]
    end
    if #outputs == 0 then
      error(message(name, "option 'output' expected a state's name or a list of distinct ones "
                    .. '(%s), got an empty list', table.concat(names, ', ')), 2)
    end
  end

  local g = graph.new(name)
  local h = graph.leaf(g, 'h', nil, list and names[1] or nil)
  local leaves, p_leaves = { h }, {}
  for k = 2, #names do leaves[k] = graph.leaf(g, 'c', k - 1, list and names[k] or nil) end
  for k, v in ipairs(params) do p_leaves[k] = graph.leaf(g, 'p', k, v) end
  -- a list's step also reads the layer's input at its unit; a linear one, whether a segment starts
  local x, reset = graph.leaf(g, 'x'), graph.leaf(g, 'reset')
  local function args()
    if not list then return leaves[1], leaves[2] end
    local s, p = { names = names }, { names = params }
    for k, v in ipairs(names) do rawset(s, v, leaves[k]) end
    for k, v in ipairs(params) do rawset(p, v, p_leaves[k]) end
    if spec.linear then return by_name('s', s), by_name('p', p), x, reset end
    return by_name('s', s), by_name('p', p), x
  end
  local function run()
    local results, n = run_step(g, spec, gates, args())
    if list then
      return named_states(g, name, names, results, n, spec.linear and 'gx, s, p, x, reset',
                          spec.linear and computed), 1
    end
    return states(g, name, spec.state, results, n), n
  end
  local new, n = run()
  n = #new
  -- A step that reads anything but its arguments (math.random, a counter) would be frozen at
  -- one value unseen: a second run must give the same nodes.
  local again = run()
  for i = 1, n do
    if not rawequal(again[i], new[i]) then
      error(message(name, 'the step gave other equations when run again (result %d); it must '
                    .. 'compute from its arguments alone, not from a random number, a clock or '
                    .. 'a counter', i), 2)
    end
  end

  local roots = { unpack(new) }
  for _, v in pairs(computed) do roots[#roots + 1] = v end -- a linear cell's computed outputs
  local _, reaches = graph.reachable(roots)
  for k = 1, gates do
    if spec.linear and not reaches[graph.leaf(g, 'gx', k)] then
      io.stderr:write(string.format('%s: %s: warning: gate %d is unused (gx[%d] reaches no new '
                                    .. 'state nor output)\n', FN, name, k, k))
    elseif not reaches[graph.leaf(g, 'gx', k)] and not reaches[graph.leaf(g, 'gh', k)] then
      io.stderr:write(string.format('%s: %s: warning: gate %d is unused (neither gx[%d] nor '
                                    .. 'gh[%d] reaches the new state)\n', FN, name, k, k, k))
    end
  end
  for k, v in ipairs(params) do
    if not reaches[p_leaves[k]] then
      io.stderr:write(string.format("%s: %s: warning: parameter '%s' is never read (p.%s reaches "
                                    .. 'no new state)\n', FN, name, v, v))
    end
  end

  if spec.linear then
    return define_linear { spec = spec, name = name, g = g, gates = gates, names = names,
                           params = params, init = init, outputs = outputs,
                           output_names = output_names, new = new, leaves = leaves,
                           p_leaves = p_leaves, x = x, reset = reset, computed = computed }
  end
  local seeds = { { new[1], graph.leaf(g, 'dh', nil, list and names[1] or nil) } }
  for k = 2, n do seeds[k] = { new[k], graph.leaf(g, 'dc', k - 1, list and names[k] or nil) } end
  local ok, adj = pcall(grad.backward, g, seeds) -- its nodes count to the bound too
  if not ok then error(message(name, '%s', tostring(adj)), 2) end
  local zero = graph.const(g, 0)
  local grads = { gx = {}, gh = {}, states = {}, p = {} }
  for k = 1, gates do
    grads.gx[k] = adj[graph.leaf(g, 'gx', k)] or zero
    grads.gh[k] = adj[graph.leaf(g, 'gh', k)] or zero
  end
  for k = 1, n do grads.states[k] = adj[leaves[k]] or zero end
  for k = 1, #params do grads.p[k] = adj[p_leaves[k]] or zero end
  if reaches[x] then grads.x = adj[x] or zero end -- a highway cell's direct path from its input
  local step = 'cell_' .. name
  local source, L = codegen.generate {
    name = name, step = step, gates = gates, new = new, outputs = outputs, params = #params,
    grads = grads, state = list and "{'" .. table.concat(names, "', '") .. "'}"
      or "'" .. spec.state .. "'" }
  if L.saved > lib.C.FUSED_CELL_SAVED_MAX then
    error(message(name, 'backward reads %d values of the step per element (its activations), '
                  .. 'more than the %d a cell may save (%d blocks, h_prev among them)',
                  L.saved - 1, lib.C.FUSED_CELL_SAVED_MAX - 1, lib.C.FUSED_CELL_SAVED_MAX), 2)
  end
  -- the parameters' initialisations are the module's, not the C's: a cell of its own
  local inits = {}
  for _, v in ipairs(params) do inits[#inits + 1] = v .. '=' .. (init[v] or 'uniform') end
  local key = source .. '\0' .. table.concat(inits, ',')
  if defined[key] then
    if spec.verbose then print(FN .. ' ' .. name .. ': reusing the cell registered before') end
    return defined[key]
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
                          gates = gates, state = list and names or spec.state,
                          params = list and params or nil, outputs = #outputs,
                          saved = L.saved, h_prev = L.h_prev,
                          d_ih = L.d_ih, d_hh = L.d_hh, x = L.x, d_x = L.d_x,
                          cache_dir = spec.cache_dir,
                          verbose = spec.verbose }
  cell.init, cell.output = init, output_names
  if say then
    io.stderr:write(string.format('%s: %s: compiled in %.1f s\n', FN, name, clock.now() - started))
  end
  cell.source = source
  defined[key] = cell
  return cell
end
