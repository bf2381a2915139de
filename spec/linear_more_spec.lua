-- The linear cells (issue 35) on the shapes and options spec/linear_cells_spec.lua leaves out,
-- against the PyTorch float64 references of spec/data/linear_more (gen.py beside them, written
-- from the papers' equations): H = 1, 3, 17, 33 and 257, B = 1, T = 1, a long T, 2 and 3
-- layers, 3 layers bidirectional, input size != hidden size, no initial state, lengths of 1 and
-- T together, resets at step 0, at the last step, at every step, and a reset tensor of zeros.
-- Every result (outputs, final states, every gradient) within 1e-10 in float64 and by the
-- golden rule in float32, on every CPU vector path and the emulated CUDA device.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'

local cache = os.tmpname()
local DATA = 'spec/data/linear_more/'

local CASES = { 'mingru_one', 'mingru_h257_resets', 'minlstm_3layers_no_h0', 'rglru_2layers_h33',
                'bidir_lru_3layers', 'bidir_sru_h1_every_step', 'bidir_rglru_b1_no_h0',
                'mingru_long_resets', 'bidir_minlstm_zero_resets', 'bidir_mingru_t1' }

-- Forward and backward of the case through nn.RNN in dtype on device (nil: the CPU); a state's
-- initial value is given where the reference has one, else nil (zeros).
local function run_case(case, dtype, device)
  local c = ref.config(DATA, case)
  local cell = fused.cell.define(ref.example(c.cell, cache .. '.d'))
  local m = fused.nn.RNN(c.I, c.H, { cell = cell, dtype = dtype, bias = c.bias,
                                     num_layers = c.num_layers, bidirectional = c.bidirectional })
  for name, p in m:named_parameters() do p:copy(ref.load(DATA, case, name)) end
  if device then m:cuda() end
  local function get(name)
    local t = ref.load(DATA, case, name)
    if name ~= 'resets' then t = t:to(dtype) end
    return device and t:cuda() or t
  end
  return ref.run(m, c, get, function(s)
    return ref.exists(DATA, case, s .. '0') and get(s .. '0') or nil
  end), c
end

describe('linear cells on more shapes and options', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  ref.every_path(CASES, function(case, dtype, device, what)
    local got, c = run_case(case, dtype, device)
    local checked = ref.compare(DATA, case, c, got, dtype, what)
    -- hs, d_xs, the weights' gradients, a final state per state at least
    assert.is_true(checked >= 3 + #c.states, case .. ': ' .. checked .. ' checked')
  end)
end)
