-- fused.cell.define refuses what it cannot compute faithfully, before compiling, saying so: a
-- symbol of another cell or used outside its step, extra arguments, Lua's comparisons and
-- fields on symbols, a step that gives other equations when run again, a name the registry
-- cannot hold, a graph over the node bound, more saved values than a row holds; a deep graph
-- does not overflow the stack; a large compile says so; the same definition registers once,
-- and a process holds FUSED_CELLS_MAX cells, the built-in ones counted, as the error says.
local helper = require 'spec.helper'
local fused = helper.fused
local F = fused.cell
local err = helper.assert_error
local C = require('fused.lib').C

local cache = os.tmpname()

local function define(name, step, gates, state)
  return function()
    return F.define { name = name, gates = gates or 1, state = state or 'h', step = step,
                      cache_dir = cache .. '.d' }
  end
end

describe('fused.cell.define refuses', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  it("a symbol of another cell's step, naming both cells", function()
    local kept
    local stderr = io.stderr
    io.stderr = helper.sink()
    local ok, e = pcall(define('first', function(gx, gh, h) kept = gx[1]; return F.tanh(h + gh[1]) end))
    io.stderr = stderr
    assert(ok, e)
    local names = "a symbol of cell 'first' used in the step of cell 'second'"
    err(define('second', function(gx, gh, h) return F.tanh(gx[1] + kept) + h end),
        'fused.cell.define: second: ', 'cell_define_limits_spec.lua:', names)
    err(define('second', function(gx, gh, h) return F.sigmoid(kept) * h end), names)
    err(define('second', function(gx, gh, h) return h - -kept end), names)
    err(define('second', function(gx, gh, h) return kept end),
        "fused.cell.define: second: step result 1 (new h) is a symbol of cell 'first'")
    err(function() return kept + 1 end, "a symbol of cell 'first' used outside its step")
    err(function() return F.exp(kept) end, "a symbol of cell 'first' used outside its step")
  end)

  it('extra or missing arguments to its functions', function()
    err(define('bad', function(gx, gh, h) return F.relu(h, 5) end), 'fused.cell.relu: expected one argument, got 2')
    err(define('bad', function(gx, gh, h) return F.min(h, gx[1], gh[1]) end), 'fused.cell.min: expected two arguments, got 3')
    err(define('bad', function(gx, gh, h) return F.max(h) end), 'fused.cell.max: expected two arguments, got 1')
    err(define('bad', function(gx, gh, h) return F.max(h, nil) end), 'fused.cell.max: argument 2 expected a symbol or a number, got nil')
  end)

  it("Lua's comparisons, fields and calls on symbols, at the step's line", function()
    local cmp = 'a symbol is no value while the step runs: F.min, F.max and F.where(F.lt(a, b), ...) choose'
    err(define('bad', function(gx, gh, h) if gx[1] == gh[1] then return h end return -h end),
        'fused.cell.define: bad: ', 'cell_define_limits_spec.lua:', "a cell's expression has no == (" .. cmp)
    err(define('bad', function(gx, gh, h) if h ~= gx[1] then return h end return -h end), 'has no ==')
    err(define('bad', function(gx, gh, h) if h < gx[1] then return h end return -h end), 'has no <')
    err(define('bad', function(gx, gh, h) if h <= gx[1] then return h end return -h end), 'has no <=')
    err(define('bad', function(gx, gh, h) if h > 0 then return h end return -h end), 'attempt to compare')
    err(define('bad', function(gx, gh, h) return h * h:size(1) end), "a cell's symbol has no field 'size'")
    err(define('bad', function(gx, gh, h) return h + h[1] end), "a cell's symbol has no field '1'")
    err(define('bad', function(gx, gh, h) h.x = 1; return h end), "a cell's symbol is read-only")
  end)

  it('a step that gives other equations when run again', function()
    local n = 0
    err(define('bad', function(gx, gh, h) n = n + 1; return h * n + gx[1] end),
        'fused.cell.define: bad: the step gave other equations when run again (result 1)')
  end)

  it('a name longer than the registry holds, before compiling; the longest name works', function()
    local long = string.rep('a', C.FUSED_CELL_NAME_MAX + 1)
    err(define(long, function(gx, gh, h) return F.tanh(gx[1] + gh[1] + h) end),
        string.format("fused.cell.define: option 'name' expected at most %d characters, got %d (%s)",
                      C.FUSED_CELL_NAME_MAX, #long, long))
    assert.is_nil(io.open(cache .. '.d/' .. long), 'nothing was built')
    local longest = string.rep('b', C.FUSED_CELL_NAME_MAX)
    local cell = define(longest, function(gx, gh, h) return F.tanh(gx[1] + gh[1] + h) end)()
    assert.are.equal(longest, cell.name)
  end)

  it('a graph over the node bound, naming it, at once; a deep graph does not overflow the stack', function()
    local bound = require('fused.cell.graph').MAX_NODES
    local msg = string.format('fused.cell.define: big: the graph of the step and its gradients '
                              .. 'passed %d nodes, the most a cell may have', bound)
    local started = os.clock()
    err(define('big', function(gx, gh, h) -- forward within the bound, backward over it
      local x = gx[1] + gh[1] + h
      for _ = 1, bound / 2 - 10 do x = F.abs(x) end
      return x
    end), msg)
    for _, f in ipairs({ 'tanh', 'abs', 'relu', 'exp' }) do
      err(define('big', function(gx, gh, h)
        local x = gx[1] + h
        for _ = 1, 20000 do x = F[f](x) end
        return x
      end), msg)
    end
    assert.is_true(os.clock() - started < 5, 'refused at once')
  end)

  it('more saved values than a row holds, before compiling', function()
    err(define('wide', function(gx, gh, h)
      local x = gx[1] + gh[1] + h
      for _ = 1, 300 do x = F.exp(x) end
      return x
    end), 'fused.cell.define: wide: backward reads 300 values of the step per element (its '
          .. string.format('activations), more than the %d a cell may save (%d blocks, h_prev among them)',
                           C.FUSED_CELL_SAVED_MAX - 1, C.FUSED_CELL_SAVED_MAX))
    assert.is_nil(io.open(cache .. '.d/wide'), 'nothing was built')
  end)
end)

-- A cell of over 500 lines of C: 120 relus, each scaled.
local function large_step(gx, gh, h)
  local x = gx[1] + gh[1] + h + h
  for i = 1, 120 do x = F.relu(x) * (1 + i / 1024) end
  return x
end

describe('fused.cell.define', function()
  it('says that a large cell is compiling, and how long it took; compiles it without the passes slowest on it', function()
    local sink, stderr = helper.sink(), io.stderr
    io.stderr = sink
    local ok, cell = pcall(define('large', large_step))
    io.stderr = stderr
    assert(ok, cell)
    local said = sink.text()
    assert.is_truthy(said:find('^fused%.cell%.define: large: compiling %d+ lines of C %(%d+ nodes%)%.%.%.\n'), said)
    assert.is_truthy(said:find('fused.cell.define: large: compiled in ', 1, true), said)
    assert.is_truthy(F.source(cell):find('#pragma GCC optimize', 1, true))
    local small = define('small', function(gx, gh, h) return F.tanh(gx[1] + gh[1] + h) end)()
    assert.is_falsy(F.source(small):find('#pragma', 1, true))
    -- its result is the same as the equations' on plain numbers
    local o = { dtype = 'float64' }
    local z = function(sizes) return fused.zeros(sizes, o) end
    local h0 = fused.tensor({ { -0.5, 0.25, 2 } }, o)
    local _, h_n = fused.functional.rnn_forward(cell, z({ 1, 1, 1 }), z({ 3, 1 }), z({ 3, 3 }),
                                                z({ 3 }), z({ 3 }), h0)
    for i = 1, 3 do
      local x = 2 * h0[1][i]
      for k = 1, 120 do x = math.max(x, 0) * (1 + k / 1024) end
      assert.are.equal(x, h_n[1][i])
    end
  end)

  it('registers a definition once per process, whatever its cache folder', function()
    local step = function(gx, gh, h) return F.sigmoid(gx[1] + gh[1]) * h end
    local a = define('once', step)()
    local b = F.define { name = 'once', gates = 1, state = 'h', step = step, cache_dir = cache .. '.other' }
    os.execute('rm -rf ' .. cache .. '.other')
    assert.are.equal(a.id, b.id)
    local c = define('once', function(gx, gh, h) return F.tanh(gx[1] + gh[1]) * h end)()
    assert.are_not.equal(a.id, c.id) -- another definition of the name: a cell of its own
  end)

  it('holds FUSED_CELLS_MAX cells in a process, the built-in ones counted, and says so', function()
    local out = helper.child(string.format([[
      local ffi, C = require 'ffi', require('fused.lib').C
      local step = ffi.cast('fused_cell_forward_f32', function() end)
      local def = ffi.new('fused_cell_def', { name = 'c', gates = 1, saved = 2, h_prev = 1,
        forward_f32 = step, backward_f32 = ffi.cast('fused_cell_backward_f32', function() end),
        forward_f64 = ffi.cast('fused_cell_forward_f64', function() end),
        backward_f64 = ffi.cast('fused_cell_backward_f64', function() end) })
      local n = 0
      while C.fused_rnn_register_cell(def) >= 0 do n = n + 1 end
      print(n, ffi.string(C.fused_last_error()))
    ]]))
    local taken = C.FUSED_CELLS_MAX - C.FUSED_NUM_CELLS
    assert.are.equal(string.format('%d\trnn_register_cell: a process holds %d cells, and all are taken '
                                   .. '(the %d built-in and %d registered: each distinct cell registers once)\n',
                                   taken, C.FUSED_CELLS_MAX, C.FUSED_NUM_CELLS, taken), out)
    assert.is_true(taken >= 1000)
  end)
end)
