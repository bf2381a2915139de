-- heads = NH on nn.LSTM, nn.GRU and nn.RNN (docs/cells.md, Heads): a block-diagonal recurrent
-- matrix stored as its blocks. Against PyTorch's float64 references (spec/data/heads, gen.py:
-- NH separate PyTorch modules' recurrences) on every CPU vector path and the CUDA device (the
-- emulated one in make test): outputs, final states and every gradient, padded and ragged,
-- stacked and bidirectional; bfloat16 compute against the same matrix run dense; gradcheck; the
-- errors; state_dict shapes and the initialisation's bound.
local helper = require 'spec.helper'
local ref = require 'spec.cell_reference'
local fused = helper.fused
local close, err = helper.assert_close, helper.assert_error
local json = require 'fused.json'

local DATA = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'data/heads/'
local CASES = { 'lstm_4heads', 'lstm_2heads', 'lstm_2heads_ragged',
                'lstm_4heads_stacked_bidirectional_ragged', 'gru_4heads', 'gru_2heads_ragged',
                'gru_2heads_stacked_bidirectional_ragged' }

local function load(case, name, dtype, device)
  return fused.load_npy(DATA .. case .. '/' .. name .. '.npy'):to(dtype):to(device)
end

-- The case's module with its parameters, and its inputs (and the names of what to compare).
local function setup(case, dtype, device, opts)
  local cfg = json.decode(helper.read(DATA .. case .. '/config.json'))
  local o = { num_layers = cfg.num_layers, bidirectional = cfg.bidirectional, heads = cfg.heads,
              dtype = dtype }
  for k, v in pairs(opts or {}) do o[k] = v end
  local m = fused.nn[cfg.cell](cfg.input_size, cfg.hidden_size, o)
  for name, p in m:named_parameters() do p:copy(load(case, name, dtype)) end
  if device == 'cuda' then m:cuda() end
  local lengths = cfg.lengths ~= json.null and cfg.lengths or nil
  return m, cfg, lengths
end

-- forward and backward of the case: {name = result}, the names of the data files.
local function results(case, dtype, device, opts)
  local m, cfg, lengths = setup(case, dtype, device, opts)
  local function get(name) return load(case, name, dtype, device) end
  local lstm = cfg.cell == 'LSTM'
  local got = {}
  if lstm then
    got.hs, got.h_n, got.c_n = m:forward(get('xs'), get('h0'), get('c0'), { lengths = lengths })
    got.d_xs, got.d_h0, got.d_c0 = m:backward(get('d_hs'), get('d_hn'), get('d_cn'))
  else
    got.hs, got.h_n = m:forward(get('xs'), get('h0'), { lengths = lengths })
    got.d_xs, got.d_h0 = m:backward(get('d_hs'), get('d_hn'))
  end
  for name, _, g in m:named_parameters() do got['d_' .. name] = g end
  return got, m
end

local function compare(case, got, dtype, tol, what)
  local n = 0
  for _, name in ipairs(helper.sorted_keys(got)) do
    close(got[name]:cpu(), load(case, name, 'float64'):to(dtype), tol, what .. ' ' .. name)
    n = n + 1
  end
  return n
end

-- The dense (G·H×H) matrix of a heads module's blocks, as PyTorch's module of size H holds
-- it, and the blocks of a dense matrix: row r's Dh columns of its head.
local function head_columns(r, H, Dh) return math.floor(((r - 1) % H) / Dh) * Dh + 1 end

local function dense(blocks, H)
  local GH, Dh = blocks:size(1), blocks:size(2)
  local w = fused.zeros({ GH, H }, { dtype = blocks.dtype })
  for r = 1, GH do
    w:narrow(1, r, 1):narrow(2, head_columns(r, H, Dh), Dh):copy(blocks:narrow(1, r, 1))
  end
  return w
end

local function blocks_of(w, Dh)
  local GH, H = w:size(1), w:size(2)
  local b = fused.zeros({ GH, Dh }, { dtype = w.dtype })
  for r = 1, GH do
    b:narrow(1, r, 1):copy(w:narrow(1, r, 1):narrow(2, head_columns(r, H, Dh), Dh))
  end
  return b
end

-- The same layers with the blocks spread into a dense weight_hh (heads = 1).
local function as_dense(m, cfg, compute)
  local d = fused.nn[cfg.cell](cfg.input_size, cfg.hidden_size, { num_layers = cfg.num_layers,
    bidirectional = cfg.bidirectional, dtype = m.weight_ih_l0.dtype, compute = compute })
  for name, p in m:named_parameters() do
    d[name]:copy(name:match('^weight_hh') and dense(p:cpu(), cfg.hidden_size) or p:cpu())
  end
  return d
end

describe('heads: a block-diagonal recurrent matrix', function()
  for _, case in ipairs(CASES) do
    for _, path in ipairs(helper.runnable_cpu_paths()) do
      it(case .. ' against PyTorch in float64 and float32 on the ' .. path .. ' path', function()
        helper.under_cpu_capability(path, function()
          local got, m = results(case, 'float64', 'cpu')
          local params = #m.parameter_names
          assert.are.equal((m.has_c and 6 or 4) + params, compare(case, got, 'float64', 1e-10, path))
          compare(case, results(case, 'float32', 'cpu'), 'float32', 1e-5, path .. ' float32')
        end)
      end)
    end

    helper.gpu_it(case .. ' against PyTorch in float64 and float32 on the CUDA device', function()
      compare(case, results(case, 'float64', 'cuda'), 'float64', 1e-10, 'cuda')
      compare(case, results(case, 'float32', 'cuda'), 'float32', 1e-5, 'cuda float32')
    end)
  end

  -- compute = 'bfloat16' multiplies the same rounded operands as the dense matrix with its zeros
  -- (a zero rounds to zero and adds nothing): only the float32 sums' order differs.
  local function bf16_against_dense(case, device)
    local got, m = results(case, 'float32', device, { compute = 'bfloat16' })
    local cfg = json.decode(helper.read(DATA .. case .. '/config.json'))
    local d = as_dense(m, cfg, 'bfloat16')
    if device == 'cuda' then d:cuda() end
    local lengths = cfg.lengths ~= json.null and cfg.lengths or nil
    local function get(name) return load(case, name, 'float32', device) end
    local want = {}
    if cfg.cell == 'LSTM' then
      want.hs, want.h_n, want.c_n = d:forward(get('xs'), get('h0'), get('c0'), { lengths = lengths })
      want.d_xs, want.d_h0, want.d_c0 = d:backward(get('d_hs'), get('d_hn'), get('d_cn'))
    else
      want.hs, want.h_n = d:forward(get('xs'), get('h0'), { lengths = lengths })
      want.d_xs, want.d_h0 = d:backward(get('d_hs'), get('d_hn'))
    end
    for name, _, g in d:named_parameters() do
      -- a block's gradient is the dense gradient at its entries
      want['d_' .. name] = name:match('^weight_hh') and blocks_of(g:cpu(), m[name]:size(2)) or g
    end
    for _, name in ipairs(helper.sorted_keys(got)) do
      close(got[name]:cpu(), want[name]:cpu(), 1e-5, device .. ' bfloat16 ' .. name)
      -- and near PyTorch's float64 results, as bfloat16 products can be
      close(got[name]:cpu(), load(case, name, 'float32'), 5e-2, device .. ' bfloat16 vs float64 ' .. name)
    end
  end

  for _, case in ipairs({ 'lstm_2heads_ragged', 'lstm_4heads_stacked_bidirectional_ragged',
                          'gru_2heads_stacked_bidirectional_ragged' }) do
    for _, path in ipairs(helper.runnable_cpu_paths()) do
      it(case .. ": compute = 'bfloat16' on the " .. path .. ' path', function()
        helper.under_cpu_capability(path, function() bf16_against_dense(case, 'cpu') end)
      end)
    end
    helper.gpu_it(case .. ": compute = 'bfloat16' on the CUDA device", function()
      bf16_against_dense(case, 'cuda')
    end)
  end

  -- Edge shapes against the same layer with the blocks spread into a dense weight_hh: one step
  -- (T = 1), a batch of one, heads of one unit (heads = H), an odd head size, a ragged batch
  -- split over two threads; float64 (1e-12) and bfloat16 compute (1e-5), every CPU path and the
  -- CUDA device.
  local SHAPES = { { 1, 3, 2, 4, 2, nil }, { 5, 1, 3, 6, 6, { 4 } }, { 4, 9, 5, 12, 4,
                   { 4, 1, 3, 4, 2, 2, 4, 1, 3 } } }
  local function against_dense(device, compute)
    local dtype = compute and 'float32' or 'float64'
    for _, class in ipairs({ 'LSTM', 'GRU' }) do
      for _, sh in ipairs(SHAPES) do
        local T, B, I, H, NH, lengths = unpack(sh)
        fused.manual_seed(11)
        local m = fused.nn[class](I, H, { heads = NH, bidirectional = true, dtype = dtype,
                                          compute = compute })
        local cfg = { cell = class, input_size = I, hidden_size = H, num_layers = 1,
                      bidirectional = true }
        local d = as_dense(m, cfg, compute)
        if device == 'cuda' then m:cuda(); d:cuda() end
        local xs = fused.randn({ T, B, I }, { dtype = dtype }):to(device)
        local d_hs = fused.randn({ T, B, 2 * H }, { dtype = dtype }):to(device)
        local got = helper.rnn_results(m, xs, nil, nil, lengths, d_hs)
        local want = helper.rnn_results(d, xs, nil, nil, lengths, d_hs)
        local names = m.parameter_names
        for i = 1, #got do
          local w = want[i]
          local name = names[i - (#got - #names)]
          if name and name:match('^weight_hh') then w = blocks_of(w, H / NH) end
          close(got[i], w, compute and 1e-5 or 1e-12,
                string.format('%s %s (%d, %d, %d, %d, %d) result %d', device, class, T, B, I, H,
                              NH, i))
        end
      end
    end
  end
  for _, path in ipairs(helper.runnable_cpu_paths()) do
    it('edge shapes against the dense matrix on the ' .. path .. ' path, 2 threads', function()
      local threads = fused.get_num_threads()
      fused.set_num_threads(2)
      local ok, e = pcall(helper.under_cpu_capability, path, function()
        against_dense('cpu')
        against_dense('cpu', 'bfloat16')
      end)
      fused.set_num_threads(threads)
      assert(ok, e)
    end)
  end
  helper.gpu_it('edge shapes against the dense matrix on the CUDA device', function()
    against_dense('cuda')
    against_dense('cuda', 'bfloat16')
  end)

  -- The module's gradients against finite differences, float64: 2 layers, both directions, a
  -- ragged batch, an odd head size.
  for _, class in ipairs({ 'LSTM', 'GRU' }) do
    it('gradcheck: ' .. class .. ' with 2 heads of 3, 2 layers, bidirectional, ragged', function()
      fused.manual_seed(8)
      local o = { dtype = 'float64' }
      local T, B, I, H = 4, 3, 2, 6
      local m = fused.nn[class](I, H, { num_layers = 2, bidirectional = true, heads = 2,
                                        dtype = 'float64' })
      local lengths = { 2, 4, 1 }
      local inputs = { fused.randn({ T, B, I }, o), fused.randn({ 4, B, H }, o) }
      if m.has_c then inputs[#inputs + 1] = fused.randn({ 4, B, H }, o) end
      local ok, worst = ref.gradcheck(m, inputs, { lengths = lengths })
      assert.is_true(ok, worst and worst.message)
    end)
  end

  -- nn.RNN over a defined cell takes heads as nn.LSTM does: the LSTM's equations give nn.LSTM's
  -- results, on the CPU and the CUDA device.
  local cache = os.tmpname()
  local function defined_lstm()
    local def = dofile('examples/cells/lstm.lua')(fused.cell)
    def.cache_dir = cache .. '.d'
    return fused.cell.define(def)
  end
  local function rnn_against_lstm(device)
    local case = 'lstm_4heads_stacked_bidirectional_ragged'
    local want = results(case, 'float64', device)
    local cfg = json.decode(helper.read(DATA .. case .. '/config.json'))
    local m = fused.nn.RNN(cfg.input_size, cfg.hidden_size, { cell = defined_lstm(),
      num_layers = cfg.num_layers, bidirectional = true, heads = cfg.heads, dtype = 'float64' })
    assert.are.equal('fused.nn.RNN(input_size=3, hidden_size=8, num_layers=2, '
                     .. 'bidirectional=true, heads=4, cell=lstm_cell)', tostring(m))
    for name, p in m:named_parameters() do p:copy(load(case, name, 'float64')) end
    if device == 'cuda' then m:cuda() end
    local function get(name) return load(case, name, 'float64', device) end
    local got = {}
    got.hs, got.h_n, got.c_n = m:forward(get('xs'), get('h0'), get('c0'), { lengths = cfg.lengths })
    got.d_xs, got.d_h0, got.d_c0 = m:backward(get('d_hs'), get('d_hn'), get('d_cn'))
    for name, _, g in m:named_parameters() do got['d_' .. name] = g end
    for _, name in ipairs(helper.sorted_keys(want)) do
      close(got[name]:cpu(), want[name]:cpu(), 1e-12, device .. ' nn.RNN ' .. name)
    end
  end
  it('nn.RNN with a defined LSTM cell and heads = 4 gives nn.LSTM with heads = 4', function()
    rnn_against_lstm('cpu')
  end)
  helper.gpu_it('nn.RNN with a defined cell and heads on the CUDA device', function()
    rnn_against_lstm('cuda')
  end)

  it('heads = 1 is the dense matrix, bit for bit', function()
    fused.manual_seed(9)
    local a = fused.nn.LSTM(3, 8, { dtype = 'float64' })
    local b = fused.nn.LSTM(3, 8, { heads = 1, dtype = 'float64' })
    assert.are.same({ 32, 8 }, b.weight_hh_l0:shape())
    assert.are.equal('fused.nn.LSTM(input_size=3, hidden_size=8)', tostring(b))
    b:load_state_dict(a:state_dict())
    local xs = fused.randn({ 5, 2, 3 }, { dtype = 'float64' })
    local d_hs = fused.randn({ 5, 2, 8 }, { dtype = 'float64' })
    local ra = helper.rnn_results(a, xs, nil, nil, { 5, 3 }, d_hs)
    local rb = helper.rnn_results(b, xs, nil, nil, { 5, 3 }, d_hs)
    for i = 1, #ra do assert.are.equal(0, (ra[i] - rb[i]):abs():max()) end
  end)

  it('functional.rnn_forward takes heads, and w_hh must have its columns', function()
    local case = 'gru_2heads_ragged'
    local m, cfg, lengths = setup(case, 'float64', 'cpu')
    local function get(name) return load(case, name, 'float64') end
    local hs, h_n = fused.functional.rnn_forward('gru', get('xs'), m.weight_ih_l0, m.weight_hh_l0,
      m.bias_ih_l0, m.bias_hh_l0, get('h0'):select(1, 1), nil,
      { lengths = lengths, heads = cfg.heads })
    close(hs, get('hs'), 1e-10, 'hs')
    close(h_n, get('h_n'):select(1, 1), 1e-10, 'h_n')
    local w_dense = fused.randn({ 18, 6 }, { dtype = 'float64' })
    err(function()
      fused.functional.rnn_forward('gru', get('xs'), m.weight_ih_l0, m.weight_hh_l0, m.bias_ih_l0,
                                   m.bias_hh_l0, get('h0'):select(1, 1))
    end, 'rnn_forward', "argument 'w_hh' expected 6 columns (hidden size 6 / heads 1)", '[18, 3]')
    err(function()
      fused.functional.rnn_forward('gru', get('xs'), m.weight_ih_l0, w_dense, m.bias_ih_l0,
                                   m.bias_hh_l0, get('h0'):select(1, 1), nil, { heads = 2 })
    end, 'rnn_forward', "argument 'w_hh' expected 3 columns (hidden size 6 / heads 2)", '[18, 6]')
    err(function()
      fused.functional.rnn_forward('gru', get('xs'), m.weight_ih_l0, m.weight_hh_l0, m.bias_ih_l0,
                                   m.bias_hh_l0, get('h0'):select(1, 1), nil, { heads = 4 })
    end, 'rnn_forward', "option 'heads' expected a divisor of the hidden size 6, got 4")
  end)

  -- The C API reads the heads from w_hh's columns: any divisor of H, else the dense shape is
  -- asked for, naming fused_rnn_forward's parameter.
  it("the C API's w_hh: H / heads columns for a divisor, an error naming w_hh otherwise", function()
    local ffi = require 'ffi'
    local C = fused.C
    local T, B, I, H = 3, 2, 4, 8
    local o = { dtype = 'float64' }
    local function z(...) return fused.zeros({ ... }, o) end
    local xs, h0, c0 = fused.randn({ T, B, I }, o), z(B, H), z(B, H)
    local w_ih, b = fused.randn({ 4 * H, I }, o), z(4 * H)
    local function forward(w_hh)
      local hs = z(T, B, H)
      local status = C.fused_rnn_forward(C.FUSED_CELL_LSTM, hs, z(B, H), z(B, H), z(T, B, 7 * H),
                                         xs, h0, c0, w_ih, w_hh, b, b, nil, 0, 0)
      return status, hs
    end
    local w_hh = fused.randn({ 4 * H, 2 }, o)
    local status, hs = forward(w_hh)
    assert.are.equal(0, status)
    local want = fused.functional.rnn_forward('lstm', xs, w_ih, w_hh, b, b, h0, c0, { heads = 4 })
    assert.are.equal(0, (hs - want):abs():max())
    assert.are_not.equal(0, forward(fused.randn({ 4 * H, 3 }, o)))
    assert.are.equal("rnn_forward: argument 'w_hh' expected shape [32, 8] (4 H x H / heads for "
                     .. "the lstm, heads dividing H), got [32, 3]", ffi.string(C.fused_last_error()))
  end)

  it('errors: heads not dividing H, not a positive integer, on a module without heads', function()
    err(function() fused.nn.LSTM(3, 8, { heads = 3 }) end,
        "LSTM: option 'heads' expected a divisor of the hidden size 8, got 3")
    err(function() fused.nn.GRU(3, 8, { heads = 16 }) end,
        "GRU: option 'heads' expected a divisor of the hidden size 8, got 16")
    for _, bad in ipairs({ 0, -2, 1.5, 0 / 0 }) do
      err(function() fused.nn.LSTM(3, 8, { heads = bad }) end,
          "LSTM: option 'heads' expected a positive integer, got " .. tostring(bad))
    end
    err(function() fused.nn.GRU(3, 8, { heads = '2' }) end,
        "GRU: option 'heads' expected a positive integer, got string")
    err(function() fused.nn.LLTM(3, 8, { heads = 2 }) end,
        "LLTM: option 'heads' is not taken by nn.LLTM (nn.LSTM, nn.GRU and nn.RNN take it)")
    err(function() fused.nn.LSTMCell(3, 8, { heads = 2 }) end, 'LSTMCell', "'heads'")
  end)

  it("state_dict: weight_hh holds the blocks, G·H x H/NH; a dense one is refused", function()
    local m = fused.nn.LSTM(3, 8, { heads = 4, num_layers = 2, bidirectional = true })
    local sd = m:state_dict()
    for _, name in ipairs({ 'weight_hh_l0', 'weight_hh_l0_reverse', 'weight_hh_l1',
                            'weight_hh_l1_reverse' }) do
      assert.are.same({ 32, 2 }, sd[name]:shape())
    end
    assert.are.same({ 32, 16 }, sd.weight_ih_l1:shape())
    local copy = fused.nn.LSTM(3, 8, { heads = 4, num_layers = 2, bidirectional = true })
    copy:load_state_dict(sd)
    assert.are.equal(0, (copy.weight_hh_l1 - m.weight_hh_l1):abs():max())
    local dense = fused.nn.LSTM(3, 8, { num_layers = 2, bidirectional = true })
    err(function() m:load_state_dict(dense:state_dict()) end, 'load_state_dict',
        "key 'weight_hh_l0' expected shape [32, 2], got [32, 8]")
  end)

  -- PyTorch's bound, 1/sqrt(H) of the whole layer, not of a head's Dh units.
  it('the initialisation is uniform within 1/sqrt(hidden_size)', function()
    fused.manual_seed(10)
    local H = 64
    local m = fused.nn.GRU(8, H, { heads = 16, dtype = 'float64' })
    for name, p in m:named_parameters() do
      local most = p:abs():max()
      assert.is_true(most <= 1 / math.sqrt(H), name)
      assert.is_true(most > 0.9 / math.sqrt(H), name)
    end
  end)
end)
