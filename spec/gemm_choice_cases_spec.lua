-- The GEMM chooser's hidden cases (issue 38; spec/gemm_cases.lua): every op that issues a GEMM
-- at the edges of the shape classes and of the packed kernel's tiles, under each provider and
-- under auto on a fresh wisdom folder, on 1 and 2 threads, against float64 references; an
-- empty operand in a layout BLAS refuses; addmm's beta = 0; a provider switched between a
-- step's forward and backward.
local helper = require 'spec.helper'
local fused = helper.fused
local cases = require 'spec.gemm_cases'
local under_gemm = helper.under_gemm

local shell = helper.shell

-- Asserts that a run of cases compared results and found none wrong.
local function none_wrong(what, n, wrong)
  assert(n > 0, what .. ': compared nothing')
  assert(#wrong == 0, string.format('%s: %d of %d wrong:\n%s', what, #wrong, n,
                                    table.concat(wrong, '\n', 1, math.min(#wrong, 20))))
end

describe('the GEMM providers', function()
  for _, setting in ipairs(cases.settings) do
    if setting ~= 'auto' then
      it('give every product, layer and cell its float64 reference under ' .. setting, function()
        under_gemm(setting, function()
          for _, run in ipairs({ 'products', 'sequences', 'bfloat16' }) do
            none_wrong(setting .. ' ' .. run, cases[run](setting))
          end
        end)
      end)
    end
  end

  it('give them under auto, measuring on a fresh wisdom folder, with no BLAS complaint', function()
    local dir = shell('mktemp -d')
    local out = helper.child([[
      local cases = require 'spec.gemm_cases'
      for _, run in ipairs({ 'products', 'sequences', 'bfloat16' }) do
        local n, wrong = cases[run]('auto')
        print(string.format('%s: %d compared, %d wrong', run, n, #wrong))
        for _, line in ipairs(wrong) do print(line) end
      end
      print('wisdom: ' .. fused.config().gemm_wisdom)
    ]], string.format('FUSED_GEMM=auto XDG_CACHE_HOME=%s HOME=%s', dir, dir))
    os.execute('rm -rf ' .. dir)
    for _, run in ipairs({ 'products', 'sequences', 'bfloat16' }) do
      assert.is_truthy(out:find(run .. ': %d+ compared, 0 wrong'), out)
    end
    -- auto measured classes of its own (oneDNN or the packed kernel a candidate).
    assert.is_truthy(out:find('wisdom: ' .. dir .. '/fused/gemm%-wisdom %([1-9]%d* classes%)'), out)
    assert.is_nil(out:find('On entry to', 1, true), out)
  end)
end)

describe('a matrix product', function()
  -- A 0×4 view of every other column is contiguous (it has no element) but neither row-major
  -- nor transposed: BLAS was given ld 0, refused it ("parameter number 8 had an illegal
  -- value") and wrote nothing, so out kept what it held.
  local function empty_view(device)
    return fused.randn({ 0, 8 }):to(device):view(0, 4, 2):select(3, 1)
  end

  it('with an empty operand in any layout writes zeros, beta·bias for addmm', function()
    for _, name in ipairs(cases.settings) do
      under_gemm(name, function()
        local a, b = fused.randn({ 3, 0 }), empty_view('cpu')
        local out = fused.full({ 3, 4 }, 7)
        fused.matmul(a, b, { out = out })
        assert.are.same(fused.zeros({ 3, 4 }):totable(), out:totable(), name)
        local t = fused.full({ 3, 4 }, 7)
        t:addmm_(a, b, { beta = 0.5 })
        assert.are.same(fused.full({ 3, 4 }, 3.5):totable(), t:totable(), name)
      end)
    end
  end)

  helper.gpu_it('with an empty operand in any layout writes zeros on CUDA too', function()
    local a, b = fused.randn({ 3, 0 }):cuda(), empty_view('cuda')
    local out = fused.full({ 3, 4 }, 7):cuda()
    fused.matmul(a, b, { out = out })
    assert.are.same(fused.zeros({ 3, 4 }):totable(), out:cpu():totable())
  end)

  it("ignores addmm's bias where beta = 0, NaN and inf in it too, as PyTorch", function()
    local a, b = fused.randn({ 5, 9 }), fused.randn({ 9, 17 })
    local want = a:double():matmul(b:double()):mul(2)
    for _, name in ipairs(cases.settings) do
      under_gemm(name, function()
        for _, dtype in ipairs({ 'float32', 'float64' }) do
          local o = { dtype = dtype }
          local x, y = a:to(dtype), b:to(dtype)
          local bad = { fused.full({ 17 }, 0 / 0, o), fused.full({ 5, 17 }, math.huge, o) }
          for _, bias in ipairs(bad) do
            local got = fused.addmm(bias, x, y, { beta = 0, alpha = 2 })
            assert(helper.rel_error(got, want) < 1e-6, name .. ' ' .. dtype .. ': ' .. tostring(got))
          end
          local t = fused.full({ 5, 17 }, 0 / 0, o):addmm_(x, y, { beta = 0, alpha = 2 })
          assert(helper.rel_error(t, want) < 1e-6, name .. ' ' .. dtype .. ' addmm_')
        end
      end)
    end
  end)

  helper.gpu_it("ignores addmm's bias where beta = 0 on CUDA too", function()
    local a, b = fused.randn({ 5, 9 }), fused.randn({ 9, 17 })
    local got = fused.addmm(fused.full({ 17 }, 0 / 0):cuda(), a:cuda(), b:cuda(), { beta = 0 })
    assert(helper.rel_error(got:cpu(), a:double():matmul(b:double())) < 1e-6, tostring(got))
  end)
end)

describe('a provider switched between forward and backward', function()
  it('gives the same gradients', function()
    local threads = fused.get_num_threads()
    local function step(fwd, bwd, dtype)
      fused.manual_seed(3)
      local o = { dtype = dtype, num_layers = 2, bidirectional = true }
      local m = fused.nn.LSTM(9, 17, o)
      local xs = fused.randn({ 6, 17, 9 }, { dtype = dtype })
      local lengths = {}
      for b = 1, 17 do lengths[b] = 1 + (b * 5) % 6 end
      local got = {}
      under_gemm(fwd, function() got[1] = m:forward(xs, nil, nil, { lengths = lengths }):clone() end)
      under_gemm(bwd, function() got[2] = m:backward(fused.ones({ 6, 17, 34 }, { dtype = dtype })) end)
      for _, _, g in m:named_parameters() do got[#got + 1] = g end
      return got
    end
    fused.set_num_threads(1)
    local want = step('openblas', 'openblas', 'float64')
    for _, fwd in ipairs(cases.settings) do
      for _, bwd in ipairs(cases.settings) do
        if fwd ~= 'auto' and bwd ~= 'auto' then -- auto would write the user's wisdom
          for _, dtype in ipairs({ 'float32', 'float64' }) do
            for i, t in ipairs(step(fwd, bwd, dtype)) do
              local e = helper.rel_error(t, want[i])
              assert(e <= (dtype == 'float64' and 1e-10 or 1e-5),
                     string.format('%s then %s, %s, result %d: %.3g', fwd, bwd, dtype, i, e))
            end
          end
        end
      end
    end
    fused.set_num_threads(threads)
  end)
end)
