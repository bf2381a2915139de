-- A dense cell whose step reads x, the layer's input at its unit (issue 34: a highway cell;
-- examples/cells/highway_gru.lua): against PyTorch float64 references of spec/data/highway
-- (gen.py beside them): zero and nonzero initial states, whole and ragged, one and both
-- directions, 1 and 2 layers; outputs, final states and every gradient within 1e-10 in float64
-- and by the golden rule in float32 (max(1e-5, 4 e), e PyTorch's own float32 error on the
-- case: ../shared/golden/README.md), on every CPU vector path and the emulated CUDA device;
-- compute = 'bfloat16' reads x as it is (only the products round); gradcheck; the sizes that
-- cannot feed x are refused at construction, naming the option.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'
local F = fused.cell
local close, err = helper.assert_close, helper.assert_error

local DATA = 'spec/data/highway/'
local CASES = { 'uni_zero_full', 'uni_state_ragged', 'bi_zero_ragged', 'bi_state_full',
                'two_layers_state_ragged', 'two_layers_zero_full' }

local cache = os.tmpname()
local function highway() return F.define(ref.example('highway_gru', cache .. '.d')) end
local function load(case, name, dtype) return ref.load(DATA, case, name, dtype) end

-- Forward and backward of the case through nn.RNN in dtype on device: {name = result on the
-- CPU}, the case's config. opts: nn.RNN's other options.
local function run_case(case, dtype, device, opts)
  local c = ref.config(DATA, case)
  local o = { cell = highway(), num_layers = c.num_layers, bidirectional = c.bidirectional,
              dtype = dtype }
  for k, v in pairs(opts or {}) do o[k] = v end
  local m = fused.nn.RNN(c.H, c.H, o)
  for name, p in m:named_parameters() do p:copy(load(case, name, dtype)) end
  if device then m:cuda() end
  local got = ref.run(m, c, function(name)
    local t = load(case, name, dtype)
    return device and t:cuda() or t
  end)
  for name, t in pairs(got) do got[name] = t:cpu() end
  return got, c
end

-- Every result against the reference: float64 within 1e-10, float32 by the golden rule.
local function compare(case, dtype, device, what)
  local got, c = run_case(case, dtype, device)
  assert.are.equal(4 + 4 * c.num_layers * (c.bidirectional and 2 or 1),
                   ref.compare(DATA, case, c, got, dtype, what))
  assert.is_true(load(case, 'd_xs', 'float64'):abs():max() > 1e-3, 'a reference checks something')
end

describe('a dense cell whose step reads x (a highway GRU)', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  ref.every_path(CASES, compare)

  -- With zero weights every product is exactly zero however its operands round, so a step that
  -- read x rounded to bfloat16 would differ from float32 by x's rounding (about 1e-3 of it).
  for _, device in ipairs({ false, 'cuda' }) do
    local test = device and helper.gpu_it or it
    test('compute = bfloat16 reads x as it is: with zero weights, float32\'s results exactly'
         .. (device and ' on the CUDA device' or ''), function()
      local case = 'bi_zero_ragged'
      local results = {}
      for i, opts in ipairs({ {}, { compute = 'bfloat16' } }) do
        local m = fused.nn.RNN(7, 7, { cell = highway(), bidirectional = true, dtype = 'float32',
                                       compute = opts.compute })
        for name, p in m:named_parameters() do
          p:copy(load(case, name, 'float32'))
          if name:find('^weight') then p:zero_() end
        end
        if device then m:cuda() end
        local xs = load(case, 'xs', 'float32')
        local r = load(case, 'r', 'float32')
        if device then xs, r = xs:cuda(), r:cuda() end
        local hs = m:forward(xs, nil, { lengths = { 5, 1, 3, 4 } })
        results[i] = { hs = hs:cpu():clone(), d_xs = m:backward(r):cpu():clone() }
      end
      assert.is_true(results[1].hs:abs():max() > 0.1)
      close(results[2].hs, results[1].hs, 0, 'hs')
      close(results[2].d_xs, results[1].d_xs, 0, 'd_xs')
    end)
  end

  it('gradcheck: 2 layers, ragged; bidirectional, ragged', function()
    fused.manual_seed(13)
    local o = { dtype = 'float64' }
    for _, shape in ipairs({ { 2, false }, { 1, true } }) do
      local m = fused.nn.RNN(3, 3, { cell = highway(), num_layers = shape[1],
                                     bidirectional = shape[2], dtype = 'float64' })
      local inputs = { fused.randn({ 4, 3, 3 }, o), fused.randn({ 2, 3, 3 }, o) }
      local ok, worst = ref.gradcheck(m, inputs, { lengths = { 4, 2, 1 } })
      assert.is_true(ok, worst and worst.message)
    end
  end)

  it('F.source: x at a block of its own before h_prev, its gradient at d_x', function()
    local src = F.source(highway())
    assert.truthy(src:find('Register with gates = 4, state = {\'h\'}, saved = 11, d_ih = 4, '
                           .. 'x = 9, d_x = 8.', 1, true), src)
    assert.truthy(src:find('const vec x_ = vload(s + 9 * H + j, m);', 1, true), src)
    assert.truthy(src:find('vstore%(s %+ 8 %* H %+ j, mul%d+, m%);'), src)
  end)

  it('an input size other than hidden_size is refused at construction, naming the option', function()
    err(function() fused.nn.RNN(3, 4, { cell = highway() }) end, "RNN: cell 'highway_gru' reads x",
        "'input_size' must equal 'hidden_size'", 'input_size=3, hidden_size=4')
  end)

  it('stacked bidirectional layers are refused at construction: layer 1 takes 2 H', function()
    err(function() fused.nn.RNN(4, 4, { cell = highway(), num_layers = 2, bidirectional = true }) end,
        "RNN: cell 'highway_gru' reads x", "equal 'hidden_size' (4)",
        'num_layers=2 and bidirectional=true layer 1 takes 2 x 4 = 8 features')
    -- one bidirectional layer, or stacked layers in one direction, run
    fused.nn.RNN(4, 4, { cell = highway(), bidirectional = true })
    fused.nn.RNN(4, 4, { cell = highway(), num_layers = 3 })
  end)

  it('fused_rnn_register_cell checks x and d_x, naming the field', function()
    local ffi, lib = require 'ffi', require 'fused.lib'
    local function register(x, d_x)
      local def = ffi.new('fused_cell_def', { name = 'xcheck', gates = 2, saved = 6, h_prev = 5,
                                              x = x, d_x = d_x })
      assert.are.equal(-1, lib.C.fused_rnn_register_cell(def))
      return ffi.string(lib.C.fused_last_error())
    end
    assert.truthy(register(1, 3):find("field 'x' expected 0 or a block in 2..5 other than "
                                      .. "h_prev's (5), got 1", 1, true))
    assert.truthy(register(4, 4):find("field 'd_x' expected 0 or a block in 2..5 other than "
                                      .. "h_prev's (5) and x's (4), got 4", 1, true))
    assert.truthy(register(4, 0):find("fields 'x' and 'd_x' expected both 0 or both blocks, got "
                                      .. '4 and 0', 1, true))
    -- valid blocks get as far as the missing steps
    assert.truthy(register(4, 3):find('forward_f32', 1, true))
  end)

  it('the C API refuses xs of another width for such a cell, naming the argument', function()
    local m = fused.nn.RNN(4, 4, { cell = highway() })
    local H = 4
    local lib = require 'fused.lib'
    local xs = fused.randn({ 2, 1, 3 })
    local saved = fused.empty({ 2, 1, lib.C.fused_rnn_saved_blocks(m.cell.id) * H })
    local rc = lib.C.fused_rnn_forward(m.cell.id, fused.empty({ 2, 1, H }),
      fused.empty({ 1, H }), nil, saved, xs, fused.zeros({ 1, H }),
      nil, fused.randn({ 4 * H, 3 }), fused.randn({ 4 * H, H }),
      fused.randn({ 4 * H }), fused.randn({ 4 * H }), nil, 0, 0)
    assert.are.equal(-1, rc)
    local msg = require('ffi').string(lib.C.fused_last_error())
    assert.truthy(msg:find("rnn_forward: argument 'xs' expected I = H = 4 (the highway_gru cell's "
                           .. "step reads the layer's input at its unit), got I=3", 1, true), msg)
  end)
end)
