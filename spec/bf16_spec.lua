-- compute = 'bfloat16' (c/cpu/bf16.h, cuda/rnn.cu, docs/cells.md): the cell engine's products
-- on operands rounded to bfloat16 (8 significant bits: a relative rounding error of at most
-- u = 2^-8 per operand) with float32 accumulation, everything else float32.
--
-- The bounds: a product of two rounded operands is off by at most (2u + u^2)·|a·b|, so a dot
-- product by at most about 2^-7·Σ|a_k·b_k|; with random signs the errors partly cancel and the
-- relative error of a sum is smaller still. The cells' pointwise maths is at most 1-Lipschitz
-- in the pre-activations, and over a few steps of a contracting recurrence the errors of the
-- steps add: a result of T ≤ 10 steps and its gradients stay within 2^-6 (4u) relative error
-- (L2) of the float32 run, and above 2^-16 (the products really are rounded). The cases below
-- give at most 3.5e-3 (about u: the roundings' errors mostly cancel), a margin of 4.5.
-- One step from given states is exact: its products are float32 products of the rounded
-- operands, so it equals float32 on inputs rounded beforehand (the state given rounded, since
-- the pointwise maths reads it in float32) up to the float32 accumulation order (1e-5). The
-- two paths (AVX512_BF16 and the float32 fallback) multiply the same rounded numbers and differ
-- only in that order.
-- CUDA (cuda/rnn.cu, on the emulated device under make test) rounds the same operands with the
-- same function and multiplies them with cublasGemmEx: a product of two bfloat16 values is exact
-- in float32, so the devices differ only in the order of the float32 sums (and the last bits of
-- the pointwise maths: CUDA's expf against the CPU's vector exp). Measured on the cases below:
-- at most 1.4e-7 from either CPU path, as float32 CUDA is from float32 CPU (1.7e-7), so
-- ORDER_BOUND again (a margin of 70).
-- And at least 2.2e-4 from CUDA's float32 run: above 10·ORDER_BOUND, so ignoring compute fails.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

local BF16_BOUND, ORDER_BOUND = 2 ^ -6, 1e-5

-- A copy of a float32 tensor rounded to bfloat16 (to nearest even; normal numbers only).
local function rounded(t)
  local r = t:contiguous():clone()
  local p = ffi.cast('uint32_t *', r.data)
  for i = 0, r:numel() - 1 do
    local u = tonumber(p[i])
    local hi = math.floor(u / 65536)
    local low = u - hi * 65536
    if low > 32768 or (low == 32768 and hi % 2 == 1) then hi = hi + 1 end
    p[i] = hi * 65536
  end
  return r
end

-- A module's results and gradients after one forward and backward of xs (ones as d_hs), on
-- the CPU or, made there and moved, on device; copied to the CPU.
local function run(class, I, H, opts, xs, lengths, device)
  fused.manual_seed(7)
  local m = fused.nn[class](I, H, opts)
  local T, B = xs:size(1), xs:size(2)
  local d_hs = fused.ones({ T, B, (opts.bidirectional and 2 or 1) * H })
  if device then m, xs, d_hs = m:to(device), xs:to(device), d_hs:to(device) end
  return helper.rnn_results(m, xs, nil, nil, lengths, d_hs)
end

-- opts with the fields of more set too.
local function with(opts, more)
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  for k, v in pairs(more) do o[k] = v end
  return o
end

local under = helper.under_cpu_capability

local CASES = {
  { 'one layer', 8, 16, {}, 6, 5 },
  { 'odd sizes, two layers, both directions, ragged', 5, 7,
    { num_layers = 2, bidirectional = true }, 4, 6, { 6, 2, 5, 1 } },
}

describe("compute = 'bfloat16'", function()
  for _, class in ipairs({ 'LSTM', 'GRU', 'LLTM' }) do
    for _, case in ipairs(CASES) do
      local name, I, H, opts, B, T, lengths = unpack(case)
      it(class .. ': ' .. name .. ': within the bfloat16 bound of float32, gradients too', function()
        fused.manual_seed(1)
        local xs = fused.randn({ T, B, I })
        local f32 = run(class, I, H, opts, xs, lengths)
        local bf = run(class, I, H, with(opts, { compute = 'bfloat16' }), xs, lengths)
        assert.are.equal(#f32, #bf)
        for i = 1, #f32 do
          local e = helper.rel_error(bf[i], f32[i])
          assert(e <= BF16_BOUND and e > 2 ^ -16,
                 string.format('result %d: relative error %.3e, expected in (2^-16, 2^-6]', i, e))
        end
      end)

      it(class .. ': ' .. name .. ': the AVX512_BF16 path and the fallback agree', function()
        if fused.config().bf16 ~= 'avx512_bf16' then
          pending('this CPU (or path) has no AVX512_BF16: only the fallback runs')
          return
        end
        fused.manual_seed(2)
        local xs = fused.randn({ T, B, I })
        local o = with(opts, { compute = 'bfloat16' })
        local native = run(class, I, H, o, xs, lengths)
        local fallback = under('avx2', function()
          assert.are.equal('float32', fused.config().bf16)
          return run(class, I, H, o, xs, lengths)
        end)
        for i = 1, #native do
          helper.assert_close(native[i], fallback[i], ORDER_BOUND, 'result ' .. i)
        end
      end)

      helper.gpu_it(class .. ': ' .. name .. ': CUDA multiplies what the CPU multiplies', function()
        assert.are.equal('cublasGemmEx', fused.config().cuda_bf16)
        fused.manual_seed(3)
        local xs = fused.randn({ T, B, I })
        local o = with(opts, { compute = 'bfloat16' })
        local gpu = run(class, I, H, o, xs, lengths, 'cuda')
        local cpu = {}
        cpu.fallback = under('avx2', function() return run(class, I, H, o, xs, lengths) end)
        if fused.config().bf16 == 'avx512_bf16' then
          cpu.avx512_bf16 = run(class, I, H, o, xs, lengths)
        end
        local f32 = run(class, I, H, opts, xs, lengths, 'cuda')
        for i = 1, #gpu do
          for path, want in pairs(cpu) do
            helper.assert_close(gpu[i], want[i], ORDER_BOUND, path .. ': result ' .. i)
          end
          local e = helper.rel_error(gpu[i], f32[i])
          assert(e > 10 * ORDER_BOUND,
                 string.format('result %d: %.3e from CUDA float32, expected above %.0e', i, e,
                               10 * ORDER_BOUND))
        end
      end)
    end
  end

  it('two threads (batch rows split, 19 rows, ragged) give one thread\'s results', function()
    local before = fused.get_num_threads()
    for _, class in ipairs({ 'LSTM', 'GRU', 'LLTM' }) do
      fused.manual_seed(5)
      local xs, lengths = fused.randn({ 7, 19, 6 }), {}
      for b = 1, 19 do lengths[b] = b % 7 + 1 end
      local o = { compute = 'bfloat16', bidirectional = true }
      fused.set_num_threads(1)
      local one = run(class, 6, 10, o, xs, lengths)
      fused.set_num_threads(2)
      local two = run(class, 6, 10, o, xs, lengths)
      fused.set_num_threads(before)
      for i = 1, #one do helper.assert_close(two[i], one[i], ORDER_BOUND, class .. ' result ' .. i) end
    end
  end)

  it('one step equals float32 on operands rounded beforehand', function()
    local F = fused.functional
    for _, cell in ipairs({ { 'lstm', 4 }, { 'gru', 3 } }) do
      local name, G = unpack(cell)
      local I, H, B = 9, 11, 5
      fused.manual_seed(3)
      -- h0 rounded for both: the cells' pointwise maths reads the float32 state too.
      local xs, h0 = fused.randn({ 1, B, I }), rounded(fused.randn({ B, H }))
      local c0 = name == 'lstm' and fused.randn({ B, H }) or nil
      local w_ih, w_hh = fused.randn({ G * H, I }), fused.randn({ G * H, H })
      local b_ih, b_hh = fused.randn({ G * H }), fused.randn({ G * H })
      local hs = F.rnn_forward(name, xs, w_ih, w_hh, b_ih, b_hh, h0, c0, { compute = 'bfloat16' })
      local want = F.rnn_forward(name, rounded(xs), rounded(w_ih), rounded(w_hh), b_ih, b_hh,
                                 h0, c0)
      helper.assert_close(hs, want, ORDER_BOUND, name)
      assert(helper.rel_error(F.rnn_forward(name, xs, w_ih, w_hh, b_ih, b_hh, h0, c0), want) > 2 ^ -16)
    end
  end)

  it('trains: a few SGD steps lower the loss as float32 does', function()
    local losses = {}
    for _, compute in ipairs({ false, 'bfloat16' }) do
      fused.manual_seed(4)
      local m = fused.nn.LSTM(4, 16, { compute = compute or nil })
      local xs, target = fused.randn({ 10, 8, 4 }), fused.randn({ 10, 8, 16 }) * 0.5
      local first, last
      for step = 1, 20 do
        m:zero_grad()
        local hs = m:forward(xs)
        local diff = hs - target
        local loss = tonumber((diff * diff):sum())
        first = first or loss
        last = loss
        m:backward(diff * 2)
        for _, p, g in m:named_parameters() do p:add_(g * -0.01) end
      end
      assert(last < 0.9 * first, string.format('%s: loss %.4f -> %.4f', tostring(compute), first, last))
      losses[#losses + 1] = last
    end
    assert(math.abs(losses[2] - losses[1]) <= 0.02 * losses[1],
           string.format('float32 %.5f, bfloat16 %.5f', losses[1], losses[2]))
  end)

  it('names the option on bad values and float64 modules', function()
    err(function() fused.nn.LSTM(3, 4, { compute = 'float16' }) end,
        "LSTM: option 'compute' expected 'bfloat16' or nil", "got 'float16'")
    err(function() fused.nn.GRU(3, 4, { compute = 1 }) end, "GRU: option 'compute'", 'got 1')
    err(function() fused.nn.LLTM(3, 4, { compute = 'bfloat16', dtype = 'float64' }) end,
        "LLTM: option 'compute' 'bfloat16' expected a float32 module, got float64 on cpu")
    err(function()
      fused.functional.rnn_forward('gru', fused.zeros({ 2, 1, 3 }, { dtype = 'float64' }),
        fused.zeros({ 12, 3 }, { dtype = 'float64' }), fused.zeros({ 12, 4 }, { dtype = 'float64' }),
        fused.zeros({ 12 }, { dtype = 'float64' }), fused.zeros({ 12 }, { dtype = 'float64' }),
        fused.zeros({ 1, 4 }, { dtype = 'float64' }), nil, { compute = 'bfloat16' })
    end, "rnn_forward: argument 'compute' bfloat16 expected float32 tensors, got 'xs' float64")
    err(function()
      fused.functional.rnn_forward('gru', fused.zeros({ 2, 1, 3 }), fused.zeros({ 12, 3 }),
        fused.zeros({ 12, 4 }), fused.zeros({ 12 }), fused.zeros({ 12 }), fused.zeros({ 1, 4 }), nil,
        { compute = 'half' })
    end, "rnn_forward: option 'compute' expected 'bfloat16' or nil", "got 'half'")
    local m = fused.nn.LSTM(3, 4, { compute = 'bfloat16' })
    assert.truthy(tostring(m):find("compute='bfloat16'", 1, true))
    m:double()
    err(function() m:forward(fused.zeros({ 2, 1, 3 }, { dtype = 'float64' })) end,
        "LSTM:forward: option 'compute' 'bfloat16' expected a float32 module, got float64 on cpu")
  end)

  helper.gpu_it('names the option for float64 CUDA modules (float32 ones run it)', function()
    err(function()
      fused.nn.GRU(3, 4, { compute = 'bfloat16', dtype = 'float64', device = 'cuda' })
    end,
        "GRU: option 'compute' 'bfloat16' expected a float32 module, got float64 on cuda")
    local m = fused.nn.LSTM(3, 4, { compute = 'bfloat16', device = 'cuda' })
    m:forward(fused.zeros({ 2, 1, 3 }, { device = 'cuda' }))
    m:double()
    err(function() m:forward(fused.zeros({ 2, 1, 3 }, { dtype = 'float64', device = 'cuda' })) end,
        "LSTM:forward: option 'compute' 'bfloat16' expected a float32 module, got float64 on cuda")
  end)
end)
