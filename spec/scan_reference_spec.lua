-- fused.scan and fused.scan_backward against PyTorch float64 plain-loop references
-- (spec/data/scan, gen.py beside them): h, d_a, d_b and d_h0 within 1e-10 in float64 and by
-- the golden rule in float32 (max(1e-5, 4 e), e PyTorch's own float32 error on the case and
-- tensor: ../shared/golden/README.md), on every CPU vector path and the emulated CUDA device;
-- ragged, with resets, reverse with lengths and resets together, T = 1, no h0, rows of more
-- than one piece, a decay near 1 over 2000 steps; non-contiguous a, b and d_h.
local helper = require 'spec.helper'
local fused = helper.fused
local ref = require 'spec.cell_reference'
local close = helper.assert_close

local DATA = 'spec/data/scan/'
local CASES = { 'plain', 'ragged_resets', 'reverse_ragged_resets', 't1_h0_4d', 'no_h0_reverse_4d',
                'wide_long_resets', 'long_decay_near_one' }

-- A copy of t that is not contiguous (its dims 1 and 2 swapped in memory).
local function strided(t)
  return t:transpose(1, 2):contiguous():transpose(1, 2)
end

-- Forward and backward of the case in dtype on device: {h, d_a, d_b, d_h0}; noncontiguous:
-- a, b and d_h given as strided views.
local function run_case(case, dtype, device, noncontiguous)
  local c = ref.config(DATA, case)
  local load = ref.getter(DATA, case, dtype, device)
  local function get(name)
    local t = load(name)
    return noncontiguous and name ~= 'resets' and name ~= 'h0' and strided(t) or t
  end
  local opts = { lengths = c.lengths, resets = c.resets and get('resets') or nil,
                 reverse = c.reverse }
  local a, h0 = get('a'), c.h0 and get('h0') or nil
  local h = fused.scan(a, get('b'), h0, opts)
  local d_a, d_b, d_h0 = fused.scan_backward(get('r'), a, h, h0, opts)
  return { h = h, d_a = d_a, d_b = d_b, d_h0 = d_h0 }, c
end

local function check_case(case, dtype, device, what, noncontiguous)
  local got, c = run_case(case, dtype, device, noncontiguous)
  for _, name in ipairs({ 'h', 'd_a', 'd_b', 'd_h0' }) do
    assert.are.equal(ref.exists(DATA, case, name), got[name] ~= nil, case .. ' ' .. name)
    if got[name] then
      local tol = dtype == 'float64' and 1e-10 or math.max(1e-5, 4 * c.pytorch_float32_error[name])
      close(got[name]:cpu(), ref.load(DATA, case, name), tol,
            table.concat({ case, what, dtype, name }, ' '))
    end
  end
end

describe('fused.scan against PyTorch', function()
  for _, case in ipairs(CASES) do
    it(case .. ': float64 within 1e-10 and float32 by the golden rule, every CPU vector path',
       function()
      for _, path in ipairs(helper.runnable_cpu_paths()) do
        helper.under_cpu_capability(path, function()
          for _, dtype in ipairs({ 'float64', 'float32' }) do check_case(case, dtype, nil, path) end
        end)
      end
    end)
    helper.gpu_it(case .. ': the same on the CUDA device', function()
      for _, dtype in ipairs({ 'float64', 'float32' }) do check_case(case, dtype, 'cuda', 'cuda') end
    end)
  end

  it('takes a, b and d_h as non-contiguous views', function()
    for _, case in ipairs({ 'reverse_ragged_resets', 't1_h0_4d' }) do
      check_case(case, 'float64', nil, 'non-contiguous', true)
    end
  end)
  helper.gpu_it('takes non-contiguous views on the CUDA device', function()
    check_case('reverse_ragged_resets', 'float64', 'cuda', 'non-contiguous', true)
  end)
end)
