-- bfloat16 and float16: stored as their bits, converted with round to nearest even, against
-- PyTorch 1.13's conversions (spec/golden/dtype16/make.py wrote expected.lua), on the CPU and
-- the emulated CUDA device; they store, select and print (their arithmetic: arith16_spec.lua).
local ffi = require 'ffi'
local fused = require 'fused'
local golden = dofile('spec/golden/dtype16/expected.lua')

local helper = require 'spec.helper'

local devices = { 'cpu' }
if helper.has_cuda() then devices[2] = 'cuda' end

-- A host tensor's elements as unsigned integers of its width (16 or 32 bits).
local function bits(t, width)
  local host = t:to('cpu'):contiguous()
  local p, r = ffi.cast(width == 16 and 'uint16_t *' or 'uint32_t *', host.data), {}
  for i = 0, host:numel() - 1 do r[i + 1] = tonumber(p[i]) end
  return r
end

-- A host tensor of dtype holding the given bits.
local function from_bits(list, dtype, width)
  local t = fused.empty(#list, { dtype = dtype })
  local p = ffi.cast(width == 16 and 'uint16_t *' or 'uint32_t *', t.data)
  for i, b in ipairs(list) do p[i - 1] = b end
  return t
end

local function is_nan16(b, dtype)
  local exp_mask, frac_mask = dtype == 'bfloat16' and 0x7f80 or 0x7c00, dtype == 'bfloat16' and 0x7f or 0x3ff
  return bit.band(b, exp_mask) == exp_mask and bit.band(b, frac_mask) ~= 0
end

-- The same bits, NaN for NaN (PyTorch's vector path writes bfloat16's NaN as 0xffff, its
-- scalar path 0x7fc0: any NaN is right).
local function assert_same_bits(expected, got, dtype)
  assert.are.equal(#expected, #got)
  for i = 1, #expected do
    if is_nan16(expected[i], dtype) then
      assert.is_true(is_nan16(got[i], dtype), string.format('case %d: expected NaN, got 0x%04x', i, got[i]))
    else
      assert.are.equal(string.format('0x%04x', expected[i]), string.format('0x%04x', got[i]),
                       'case ' .. i)
    end
  end
end

for _, device in ipairs(devices) do
  describe('16-bit dtypes on the ' .. device, function()
    local inputs = from_bits(golden.inputs, 'float32', 32):to(device)

    for _, dtype in ipairs({ 'bfloat16', 'float16' }) do
      it(dtype .. ' from float32 rounds to nearest even as PyTorch (NaN, inf, subnormals, overflow)', function()
        local t = inputs:to(dtype)
        assert.are.equal(dtype, t.dtype)
        assert.are.equal(device, t.device)
        assert_same_bits(golden[dtype], bits(t, 16), dtype)
      end)

      it(dtype .. ' to float32 is exact', function()
        local back = bits(from_bits(golden[dtype], dtype, 16):to(device):float(), 32)
        local want = golden[dtype .. '_back']
        for i = 1, #want do
          if is_nan16(golden[dtype][i], dtype) then
            assert.is_true(bit.band(back[i], 0x7f800000) == 0x7f800000 and bit.band(back[i], 0x7fffff) ~= 0)
          else
            assert.are.equal(string.format('0x%08x', want[i] % 2 ^ 32), string.format('0x%08x', back[i]), 'case ' .. i)
          end
        end
      end)

      it(dtype .. ' from and to float32 on its bits equals the conversions through float64', function()
        -- Every 16-bit pattern, and floats around each 16-bit value's ties (the float32 paths
        -- are c/maths/convert.h's bit tricks, the float64 ones its general rounding).
        local all, near = {}, {}
        for b = 0, 65535 do
          all[b + 1] = b
          local hi = b * 65536
          for _, low in ipairs({ 0x0fff, 0x1000, 0x1001, 0x7fff, 0x8000, 0x8001 }) do
            near[#near + 1] = hi + low
          end
        end
        -- Any NaN for a NaN: through float64 a signalling one comes back quiet.
        local function floats(t)
          local r = bits(t, 32)
          for i, b in ipairs(r) do
            if b % 2 ^ 31 > 0x7f800000 then r[i] = 'NaN' end
          end
          return r
        end
        local h = from_bits(all, dtype, 16):to(device)
        assert.are.same(floats(h:double():float()), floats(h:float()))
        local f = from_bits(near, 'float32', 32):to(device)
        local function halves(t)
          local r = bits(t, 16)
          for i, b in ipairs(r) do
            if is_nan16(b, dtype) then r[i] = 'NaN' end
          end
          return r
        end
        assert.are.same(halves(f:double():to(dtype)), halves(f:to(dtype)))
      end)

      it(dtype .. ' from int64 and float64, and to int64, bool and float64', function()
        local ints = fused.tensor(golden.int64s, { dtype = 'int64', device = device })
        assert_same_bits(golden['int64_' .. dtype], bits(ints:to(dtype), 16), dtype)
        assert_same_bits(golden['int64_' .. dtype], bits(ints:double():to(dtype), 16), dtype)
        local t = fused.tensor({ -3, 0, 2.5, 7 }, { dtype = dtype, device = device })
        assert.are.same({ -3, 0, 2.5, 7 }, t:double():totable())
        assert.are.same({ true, false, true, true }, t:bool():totable())
        assert.are.same({ -3, 0, 7 }, fused.tensor({ -3, 0, 7 }, { dtype = dtype, device = device }):long():totable())
        assert.has_error(function() t:long() end)
        assert.are.same({ 1, 0, 1 }, fused.tensor({ true, false, true }, { device = device }):to(dtype):totable())
      end)

      it(dtype .. ' from float64 rounds once, as NumPy does (PyTorch goes through float32)', function()
        -- Just above a tie of the 16-bit format, by less than float32 holds: NumPy's
        -- float16(1 + 2^-11 + 2^-30) is 0x3c01; PyTorch 1.13 rounds to float32 first, lands on
        -- the tie and gives 0x3c00 (0x3f80 for bfloat16, whose tie is at 1 + 2^-8).
        local tie = dtype == 'bfloat16' and 2 ^ -8 or 2 ^ -11
        local t = fused.tensor({ 1 + tie + 2 ^ -30, 1 + tie, -(1 + 3 * tie) }, { dtype = 'float64', device = device })
        local want = dtype == 'bfloat16' and { 0x3f81, 0x3f80, 0xbf82 } or { 0x3c01, 0x3c00, 0xbc02 }
        assert_same_bits(want, bits(t:to(dtype), 16), dtype)
      end)

      it(dtype .. ' factories, item, totable, indexing and copies between devices', function()
        local z = fused.zeros({ 2, 3 }, { dtype = dtype, device = device })
        assert.are.same({ { 0, 0, 0 }, { 0, 0, 0 } }, z:totable())
        local t = fused.tensor({ { 1, 2.5 }, { -3, 0.1 } }, { dtype = dtype, device = device })
        assert.are.equal(2.5, t[1][2])
        assert.are.equal(-3, t[2]:narrow(1, 1, 1):item())
        local tenth = dtype == 'bfloat16' and 0.10009765625 or 0.0999755859375
        assert.are.equal(tenth, t[2][2])
        assert.are.same(t:totable(), t:to('cpu'):to(device):totable())
        assert.are.equal(dtype, t:cpu().dtype)
        assert.has_error(function() t:fill_(dtype == 'float16' and 65520 or 3.4e38) end,
                         "fill_: argument 'value' expected a number within " .. dtype .. "'s range, got "
                         .. (dtype == 'float16' and '65520' or '3.4e+38'))
        t:fill_(1 / 0) -- an infinity is one of its values
        assert.are.equal(math.huge, t[1][1])
        t:fill_(0.1)
        assert.are.same({ tenth, tenth }, t[1]:totable())
        assert.are.same({ 0, 1, 2 }, fused.arange(3, { dtype = dtype, device = device }):totable())
        assert.are.same({ 0, 0.5, 1 }, fused.linspace(0, 1, 3, { dtype = dtype, device = device }):totable())
        assert.are.same({ { 1, 0 }, { 0, 1 } }, fused.eye(2, { dtype = dtype, device = device }):totable())
        local full = fused.full({ 2 }, 1 / 3, { dtype = dtype, device = device })
        assert.are.same(fused.tensor({ 1 / 3 }, { dtype = dtype }):totable()[1], full[1])
      end)

      it(dtype .. ' compares and selects', function()
        local t = fused.tensor({ 1, 2.5, -3, 0 / 0 }, { dtype = dtype, device = device })
        assert.are.same({ false, true, false, false }, t:gt(2):totable())
        assert.are.same({ true, false, false, false }, t:eq(fused.tensor({ 1, 0, 0, 0 }, { dtype = dtype, device = device })):totable())
        local w = fused.where(t:gt(0), t, fused.zeros(4, { dtype = dtype, device = device }))
        assert.are.equal(dtype, w.dtype)
        assert.are.same({ 1, 2.5, 0, 0 }, w:totable())
        assert.are.same({ -3, 1 }, t:index_select(1, { 3, 1 }):totable())
        local c = fused.cat({ t:narrow(1, 1, 2), t:narrow(1, 3, 1) }, 1)
        assert.are.equal(dtype, c.dtype)
        assert.are.same({ 1, 2.5, -3 }, c:totable())
        assert.are.same({ { 1, 2.5 }, { 1, 2.5 } }, fused.stack({ t:narrow(1, 1, 2), t:narrow(1, 1, 2) }, 1):totable())
        if device == 'cpu' then -- masked_select is the CPU's only, for every dtype
          assert.are.same({ 2.5 }, t:narrow(1, 1, 3):masked_select(fused.tensor({ false, true, false })):totable())
        end
      end)

      it(dtype .. ' fills with random numbers drawn in float64 and rounded once', function()
        fused.manual_seed(3)
        local t = fused.empty({ 1000 }, { dtype = dtype, device = device }):uniform_(-1, 1)
        fused.manual_seed(3)
        local d = fused.empty({ 1000 }, { device = device, dtype = 'float64' }):uniform_(-1, 1)
        assert.are.same(d:to(dtype):totable(), t:totable())
      end)

      it(dtype .. ' computes in the op layer (spec/arith16_spec.lua); elsewhere it says to convert', function()
        local t = fused.tensor({ 1, 2 }, { dtype = dtype, device = device })
        assert.are.same({ 2, 4 }, (t + t):totable())
        assert.are.equal(dtype, (t + t).dtype)
        local logits = fused.zeros({ 2, 3 }, { dtype = dtype, device = device })
        local target = fused.tensor({ 1, 2 }, { dtype = 'int64', device = device })
        helper.assert_error(function() fused.functional.cross_entropy(logits, target) end,
                            "cross_entropy: argument 'logits' expected float32 or float64, got " .. dtype,
                            'convert with :float()')
        local s = t + fused.tensor({ 0.5, 0.5 }, { device = device })
        assert.are.equal('float32', s.dtype)
        assert.are.same({ 1.5, 2.5 }, s:totable())
        assert.are.same({ 2, 4 }, (t:float() * 2):totable())
      end)
    end
  end)
end

describe('16-bit dtypes', function()
  it('print their values as PyTorch does', function()
    local t = fused.tensor({ 1, 2.5, -3, 3.14159265 }, { dtype = 'bfloat16' })
    -- PyTorch's tolist() gives [1.0, 2.5, -3.0, 3.140625]: the bfloat16 values, exactly.
    assert.matches('3.140625', golden.bfloat16_text, 1, true)
    assert.are.same({ 1, 2.5, -3, 3.140625 }, t:totable())
    assert.matches('3.1406', tostring(t), 1, true)
    assert.matches('[fused.Tensor bfloat16 cpu of size 4]', tostring(t), 1, true)
    assert.matches('[fused.Tensor float16 cpu of size 4]', tostring(t:half()), 1, true)
  end)

  it('are floating, and t:bfloat16() and t:half() convert', function()
    local t = fused.ones(2)
    assert.are.equal('bfloat16', t:bfloat16().dtype)
    assert.are.equal('float16', t:half().dtype)
    assert.are.equal('fused.BFloat16Tensor', t:bfloat16():type())
    assert.are.equal('fused.HalfTensor', t:half():type())
  end)
end)
