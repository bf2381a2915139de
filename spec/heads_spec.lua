-- heads = NH on nn.LSTM, nn.GRU and nn.RNN (docs/cells.md, Heads): a block-diagonal recurrent
-- matrix stored as its blocks. Against PyTorch's float64 references (spec/data/heads, gen.py:
-- NH separate PyTorch modules' recurrences) on every CPU vector path and the CUDA device (the
-- emulated one in make test): outputs, final states and every gradient, padded and ragged,
-- stacked and bidirectional; bfloat16 compute against the same matrix run dense; gradcheck; the
-- errors; state_dict shapes and the initialisation's bound.
local helper = require 'spec.helper'
local fused = helper.fused
local close = helper.assert_close
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
end)
