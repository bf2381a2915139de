-- The sLSTM (examples/cells/slstm.lua) with heads = 1, 2, 4 and NH = H on nn.RNN, against
-- xLSTM's vanilla pointwise step with the block-diagonal recurrent product (PyTorch float64
-- references in spec/data/cell_states, gen.py beside them): zero and nonzero initial states,
-- whole and ragged, H and head sizes off the vector width, B = 1, T = 1. Outputs, final states
-- and every gradient within 1e-10 in float64 and within the golden rule in float32
-- (max(1e-5, 4 e), e PyTorch's own float32 error on the case: ../shared/golden/README.md), on
-- every CPU vector path and the emulated CUDA device; compute = 'bfloat16' with 4 heads against
-- the same blocks run as the dense matrix; gradcheck through 2 bidirectional layers of 2 heads;
-- heads that do not divide H are refused.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'
local F = fused.cell
local close, err = helper.assert_close, helper.assert_error

local DATA = 'spec/data/cell_states/'
local CASES = { 'slstm_h3_state_b1', 'slstm_h2_zero_wide_ragged', 'slstm_hH_state_t1',
                'slstm_hH_zero_t1_b1' }
for _, heads in ipairs({ 1, 2, 4 }) do
  for _, init in ipairs({ 'zero', 'state' }) do
    for _, shape in ipairs({ 'full', 'ragged' }) do
      CASES[#CASES + 1] = string.format('slstm_h%d_%s_%s', heads, init, shape)
    end
  end
end

local cache = os.tmpname()
local function slstm() return F.define(ref.example('slstm', cache .. '.d')) end
local function load(case, name, dtype) return ref.load(DATA, case, name, dtype) end

-- The dense (4·H x H) matrix of weight_hh's blocks (4·H x H/NH): row r on its head's columns.
local function spread(blocks, H)
  local GH, Dh = blocks:size(1), blocks:size(2)
  local w = fused.zeros({ GH, H }, { dtype = blocks.dtype })
  for r = 1, GH do
    w:narrow(1, r, 1):narrow(2, math.floor(((r - 1) % H) / Dh) * Dh + 1, Dh):copy(blocks:narrow(1, r, 1))
  end
  return w
end

-- Forward and backward of the case through nn.RNN(heads = the case's) in dtype on device:
-- {name = result on the CPU}, the case's config.
-- opts: nn.RNN's other options; dense: weight_hh spread into the dense matrix, heads = 1.
local function run_case(case, dtype, device, opts, dense)
  local c = ref.config(DATA, case)
  local o = { cell = slstm(), heads = dense and 1 or c.heads, dtype = dtype }
  for k, v in pairs(opts or {}) do o[k] = v end
  local m = fused.nn.RNN(c.I, c.H, o)
  for name, p in m:named_parameters() do
    local t = load(case, name, dtype)
    p:copy(dense and name == 'weight_hh_l0' and spread(t, c.H) or t)
  end
  if device then m:cuda() end
  local got = ref.run(m, c, function(name)
    local t = load(case, name, dtype)
    return device and t:cuda() or t
  end)
  for name, t in pairs(got) do
    local want = load(case, name, dtype)
    got[name] = t.ndim == want.ndim and t:cpu() or t:cpu():contiguous():view(want:shape()) -- (1, B, H) states
  end
  return got, c
end

-- Every result against the reference: float64 within 1e-10, float32 by the golden rule.
local function compare(case, dtype, device, what)
  local got, c = run_case(case, dtype, device)
  assert.are.equal(2 + 2 * #c.states + 4, ref.compare(DATA, case, c, got, dtype, what))
  assert.is_true(load(case, 'd_weight_ih_l0', 'float64'):abs():max() > 1e-3, 'a reference checks something')
end

describe('sLSTM with heads against xLSTM\'s vanilla step', function()
  teardown(function() os.execute('rm -rf ' .. cache .. '.d'); os.remove(cache) end)

  ref.every_path(CASES, compare)

  -- compute = 'bfloat16' multiplies the same rounded operands as the dense matrix with its zeros
  -- (a zero rounds to zero and adds nothing): only the float32 sums' order differs.
  for _, device in ipairs({ false, 'cuda' }) do
    local test = device and helper.gpu_it or it
    test('compute = bfloat16 with 4 heads: the dense matrix\'s results, near the float64 reference'
         .. (device and ' on the CUDA device' or ''), function()
      local case, bf = 'slstm_h4_state_ragged', { compute = 'bfloat16' }
      local got = run_case(case, 'float32', device, bf)
      local want = run_case(case, 'float32', device, bf, true)
      want.d_weight_hh_l0 = nil -- the dense matrix's gradient has the zeros' entries too
      for _, name in ipairs(helper.sorted_keys(want)) do
        close(got[name], want[name], 1e-5, 'bfloat16 heads against dense ' .. name)
        close(got[name], load(case, name, 'float32'), 5e-2, 'bfloat16 against float64 ' .. name)
      end
    end)
  end

  it('gradcheck: 2 heads of 3 units, 2 layers, bidirectional, ragged', function()
    fused.manual_seed(11)
    local T, B, I, H = 4, 3, 2, 6
    local m = fused.nn.RNN(I, H, { cell = slstm(), heads = 2, num_layers = 2, bidirectional = true,
                                   dtype = 'float64' })
    assert.are.same({ 4 * H, H / 2 }, m.weight_hh_l1_reverse:shape())
    local o = { dtype = 'float64' }
    local inputs = { fused.randn({ T, B, I }, o) }
    for i = 1, 4 do inputs[i + 1] = fused.randn({ 4, B, H }, o) end
    inputs[4]:abs_():add_(0.5) -- n > 0: a zero one selects the first step's stabiliser
    local ok, worst = ref.gradcheck(m, inputs, { lengths = { 2, 4, 1 } })
    assert.is_true(ok, worst and worst.message)
  end)

  it('heads that do not divide H are refused, naming the option', function()
    err(function() fused.nn.RNN(3, 6, { cell = slstm(), heads = 4 }) end, 'heads')
  end)
end)
