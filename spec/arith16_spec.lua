-- bfloat16 and float16 compute (ops/widen.lua): each op computes in float32 and rounds its
-- results once, as PyTorch's CPU does, on the CPU and the emulated CUDA device; against
-- PyTorch's own 16-bit results (spec/golden/arith16/make.py wrote expected.lua) and against
-- fused's float32 op rounded afterwards.
local ffi = require 'ffi'
local fused = require 'fused'
local helper = require 'spec.helper'
local golden = dofile('spec/golden/arith16/expected.lua')

local devices = { 'cpu' }
if helper.has_cuda() then devices[2] = 'cuda' end
local DTYPES = { 'bfloat16', 'float16' }

-- A tensor's elements as 16-bit patterns.
local function bits(t)
  local host = t:to('cpu'):contiguous()
  local p, r = ffi.cast('uint16_t *', host.data), {}
  for i = 0, host:numel() - 1 do r[i + 1] = tonumber(p[i]) end
  return r
end

-- The distance in units of the last place between two finite 16-bit patterns of one sign.
local function ulps(x, y) return math.abs(x - y) end

-- The ops of expected.lua on a and b (16-bit tensors of 8 elements); cumsum and sort on the
-- CPU only, as for every dtype so far.
local function ops(a, b)
  local m = a:view(2, 4)
  local r = {
    add = a + b, sub = a - b, mul = a * b, div = a / b, add_scalar = a + 0.1,
    mul_scalar = a * 1.1, pow = a:abs():pow(0.5), exp = a:exp(), tanh = a:tanh(),
    sigmoid = a:sigmoid(), neg = -a, sqrt = a:abs():sqrt(), log = (a:abs() + 1):log(),
    maximum = fused.maximum(a, b), clamp = a:clamp(-1, 2), sum_dim = m:sum(2),
    mean_dim = m:mean(2), softmax = fused.softmax(m, 2),
    logsumexp = fused.logsumexp(m, 2, true), matmul = m:matmul(b:view(4, 2)),
    big = fused.tensor({ 60000 }, { dtype = a.dtype, device = a.device }) * 2,
    tiny = fused.tensor({ 1e-3 }, { dtype = a.dtype, device = a.device }):pow(4),
    sum_all = fused.tensor({ a:sum() }, { dtype = a.dtype }), -- a number, rounded
  }
  -- The rounding cases, on make.py's inputs for the dtype.
  local h = a.dtype == 'bfloat16' and 2 ^ -8 or 2 ^ -11
  local tiny = a.dtype == 'bfloat16' and { { 1e-20, 2 ^ -126 }, { 1e-20, 0.5 } }
                                      or { { 1e-3, 2 ^ -24 }, { 1e-3, 0.5 } }
  local function t(values) return fused.tensor(values, { dtype = a.dtype, device = a.device }) end
  r.ties = t({ 1, 1 + 2 * h, -1, 2 }) + t({ h, h, -h, 2 * h })
  -- float16 cannot take 3e38 from a Lua number (fused.tensor refuses it); as a conversion it
  -- rounds to an infinity, as PyTorch's tensor() gives it
  r.overflow = fused.tensor({ 3e38, -3e38, 65504 }, { device = a.device }):to(a.dtype) * 2
  r.subnormal = t(tiny[1]) * t(tiny[2])
  if a.device == 'cpu' then r.cumsum, r.sort = a:cumsum(1), (a:sort()) end
  return r
end

-- Exact where fused and PyTorch do the same float32 operations in the same order; within one
-- unit of the 16-bit last place where their float32 maths (exp, tanh, pow, ...) or summation
-- order may differ in float32's last bits and a rounding then falls the other way.
local EXACT = { add = true, sub = true, mul = true, div = true, add_scalar = true,
                mul_scalar = true, neg = true, maximum = true, clamp = true, sort = true,
                cumsum = true, big = true, ties = true, overflow = true, subnormal = true }

for _, device in ipairs(devices) do
  for _, dtype in ipairs(DTYPES) do
    describe(dtype .. ' arithmetic on the ' .. device, function()
      local topts = { dtype = dtype, device = device }
      local a, b = fused.tensor(golden.a, topts), fused.tensor(golden.b, topts)

      it("equals PyTorch's " .. dtype .. ' ops bit for bit, or within one unit where float32 maths differs', function()
        for name, got in pairs(ops(a, b)) do
          assert.are.equal(dtype, got.dtype, name)
          local want, have = golden[dtype][name], bits(got)
          assert.are.equal(#want, #have, name)
          for i = 1, #want do
            local d = ulps(want[i], have[i])
            assert(d == 0 or (not EXACT[name] and d <= 1), string.format(
              '%s[%d]: expected 0x%04x, got 0x%04x', name, i, want[i], have[i]))
          end
        end
      end)

      it('every unary op equals float32 rounded once, in place and into out too', function()
        local x = fused.randn({ 3, 5 }, { device = device }):to(dtype)
        for _, name in ipairs({ 'neg', 'abs', 'exp', 'log', 'sqrt', 'tanh', 'sigmoid', 'relu',
                                'sign', 'floor', 'ceil', 'round', 'trunc' }) do
          local input = (name == 'log' or name == 'sqrt') and x:abs() or x
          local want = bits(fused[name](input:float()):to(dtype))
          assert.are.same(want, bits(fused[name](input)), name)
          local inplace = input:clone()
          assert.are.equal(inplace, inplace[name .. '_'](inplace), name .. '_ returns self')
          assert.are.equal(dtype, inplace.dtype)
          assert.are.same(want, bits(inplace), name .. '_')
          local out = fused.empty({ 1 }, topts)
          assert.are.equal(out, fused[name](input, { out = out }))
          assert.are.same({ 3, 5 }, out:shape())
          assert.are.same(want, bits(out), name .. ' out')
        end
      end)

      it('reductions, scans and products equal float32 rounded once', function()
        local x = fused.randn({ 4, 6 }, { device = device }):to(dtype)
        local w, xt, xtx = x:float(), x:t(), x:t():matmul(x)
        -- Each op on 16-bit operands against the same op on them widened, then rounded.
        local cases = {
          { fused.sum, x, 1 }, { fused.prod, x, 2 }, { fused.var, x, 2 }, { fused.norm, x, 2, 1 },
          { fused.log_softmax, x, 1 }, { fused.matmul, x, xt }, { fused.addmm, x, x, xtx },
        }
        if device == 'cpu' then cases[#cases + 1] = { fused.cumprod, x, 2 } end
        for i, c in ipairs(cases) do
          local args, wide = { unpack(c, 2) }, {}
          for k, a in ipairs(args) do wide[k] = type(a) == 'number' and a or a:float() end
          local got = c[1](unpack(args))
          assert.are.equal(dtype, got.dtype, 'case ' .. i)
          assert.are.same(bits(c[1](unpack(wide)):to(dtype)), bits(got), 'case ' .. i)
        end
        local values, indices = x:max(2)
        local wv, wi = w:max(2)
        assert.are.same(bits(wv:to(dtype)), bits(values))
        assert.are.equal('int64', indices.dtype)
        assert.are.same(wi:totable(), indices:totable())
        assert.are.equal(w:argmax(), x:argmax()) -- an index, as it is
        -- A number is float32's, rounded as PyTorch's 0-d result.
        assert.are.equal(fused.tensor({ w:sum() }):to(dtype):item(), x:sum())
        local vs, is = fused.empty({ 1 }, topts), fused.empty({ 1 }, { dtype = 'int64', device = device })
        local rv, ri = x:min(1, { out = { vs, is } })
        assert(rawequal(vs, rv) and rawequal(is, ri), 'min writes its outs')
        assert.are.same(bits(w:min(1):to(dtype)), bits(vs))
        assert.are.same(select(2, w:min(1)):totable(), is:totable())
        if device == 'cpu' then
          local sorted = fused.empty({ 1 }, topts)
          assert(rawequal(sorted, (x:sort(2, true, { out = { sorted } }))), 'sort writes its out')
          assert.are.same(bits((w:sort(2, true)):to(dtype)), bits(sorted))
        end
      end)

      it("promotes as PyTorch: with numbers and integers it stays " .. dtype .. ', with a wider float it widens', function()
        local other = dtype == 'bfloat16' and 'float16' or 'bfloat16'
        local ints = fused.tensor({ 1, 2, 3, 4, 5, 6, 7, 8 }, { dtype = 'int64', device = device })
        assert.are.equal(dtype, (a + ints).dtype)
        assert.are.equal(dtype, (a * 2.5).dtype)
        assert.are.equal('float32', (a + b:to(other)).dtype)
        assert.are.equal('float32', (a + b:float()).dtype)
        assert.are.equal('float64', (a + b:double()).dtype)
        assert.are.same((a:float() + b:float()):totable(), (a + b:float()):totable())
        local c = a:clone()
        c:add_(b:float()) -- in place keeps self's dtype, rounding the float32 sum
        assert.are.equal(dtype, c.dtype)
        assert.are.same(bits((a:float() + b:float()):to(dtype)), bits(c))
        local f = a:float()
        f:add_(b) -- a float32 self takes a 16-bit operand exactly
        assert.are.same((a:float() + b:float()):totable(), f:totable())
      end)

      it("refuses an out of another dtype and an overlapping self, naming the op's argument", function()
        assert.has_error(function() fused.exp(a, { out = fused.empty({ 8 }, { device = device }) }) end,
                         "exp: argument 'out' expected " .. dtype .. ' on ' .. device
                         .. ' (the result\'s), got float32 on ' .. device)
        helper.assert_error(function() fused.unique(a, { out = a:clone() }) end,
                            "unique: unknown option 'out'", 'arith16_spec.lua:')
        helper.assert_error(function() a:max(1, { out = a:clone() }) end,
                            "max: option 'out' expected a list {values, indices}, got tensor",
                            'arith16_spec.lua:')
        local expanded = a:view(1, 8):expand(2, 8)
        helper.assert_error(function() expanded:add_(1) end, "add_: argument 'self' expected a tensor "
                            .. 'whose elements do not overlap in memory')
      end)
    end)
  end
end
