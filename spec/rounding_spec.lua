-- floor, ceil, round (half to even, as PyTorch's), trunc and sign, on every dtype and device,
-- against plain Lua; and clamp of int64, whose number bounds must be int64 values.
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

local devices = { 'cpu' }
if helper.has_cuda() then devices[2] = 'cuda' end

-- Plain Lua: round half to even.
local function round_even(x)
  local f = math.floor(x)
  local d = x - f
  if d > 0.5 or (d == 0.5 and f % 2 == 1) then return f + 1 end
  return f
end
local function trunc(x) return x < 0 and math.ceil(x) or math.floor(x) end
local function sign(x) return x > 0 and 1 or x < 0 and -1 or 0 end
local reference = { floor = math.floor, ceil = math.ceil, round = round_even, trunc = trunc,
                    sign = sign }

-- Random values in (-10, 10) with every half from -4.5 to 4.5 among them, and ±0.
local function values(n)
  local v = {}
  for h = -9, 9, 2 do v[#v + 1] = h / 2 end
  v[#v + 1], v[#v + 1] = 0, -0.0
  while #v < n do v[#v + 1] = (math.random() - 0.5) * 20 end
  return v
end

local function map(f, xs)
  local r = {}
  for i, x in ipairs(xs) do r[i] = f(x) end
  return r
end

for _, device in ipairs(devices) do
  describe('rounding ops on ' .. device, function()
    for _, dtype in ipairs({ 'float32', 'float64' }) do
      it('match plain Lua on random values and every half (' .. dtype .. ')', function()
        math.randomseed(7)
        -- float32 holds the values rounded to it: the reference reads them back from the tensor
        local t = fused.tensor(values(64), { dtype = dtype, device = device })
        local xs = t:cpu():totable()
        for name, f in pairs(reference) do
          local want = map(f, xs)
          assert.are.same(want, t[name](t):cpu():totable(), name)
          assert.are.same(want, fused[name](t):cpu():totable(), name)
          local c = t:clone()
          assert.are.equal(c, c[name .. '_'](c))
          assert.are.same(want, c:cpu():totable(), name .. '_')
        end
      end)

      it('take a transposed view and keep its shape (' .. dtype .. ')', function()
        local t = fused.tensor({ { -1.5, 2.5 }, { 0.5, -2.7 }, { 3.2, -0.2 } },
                               { dtype = dtype, device = device }):t()
        assert.are.same({ { -2, 0, 3 }, { 2, -3, -0.0 } }, t:round():cpu():totable())
        assert.are.same({ { -1, 1, 1 }, { 1, -1, -1 } }, t:sign():cpu():totable())
        t:floor_()
        assert.are.same({ { -2, 0, 3 }, { 2, -3, -1 } }, t:cpu():totable())
      end)
    end

    it('keep NaN and infinities; sign of NaN is 0, as PyTorch', function()
      local t = fused.tensor({ 0 / 0, math.huge, -math.huge }, { dtype = 'float64', device = device })
      for _, name in ipairs({ 'floor', 'ceil', 'round', 'trunc' }) do
        local r = t[name](t):cpu():totable()
        assert.is_true(r[1] ~= r[1], name)
        assert.are.same({ math.huge, -math.huge }, { r[2], r[3] }, name)
      end
      assert.are.same({ 0, 1, -1 }, t:sign():cpu():totable())
    end)

    it('are the identity on int64 (sign -1, 0, 1), beyond float64 integers', function()
      local xs = { -7, -1, 0, 1, 9 }
      local t = fused.tensor(xs, { dtype = 'int64', device = device })
      for _, name in ipairs({ 'floor', 'ceil', 'round', 'trunc' }) do
        local r = t[name](t)
        assert.are.equal('int64', r.dtype)
        assert.are.same(xs, r:cpu():totable(), name)
      end
      assert.are.same({ -1, -1, 0, 1, 1 }, t:sign():cpu():totable())
      local big = fused.tensor({ 2 ^ 53 }, { dtype = 'int64', device = device }) + 1
      assert.are.equal(big:item(), big:round():item())
    end)

    it('refuse bool and a second argument', function()
      err(function() fused.round(fused.tensor({ true }, { device = device })) end,
          "round: argument 'input' expected a number dtype")
      err(function() fused.tensor({ 1.5 }, { device = device }):floor(2) end,
          'floor: expected one tensor, got a second argument (number)')
    end)
  end)

  describe('clamp of int64 on ' .. device, function()
    local opts = { dtype = 'int64', device = device }
    it('is exact and stays int64, with number and tensor bounds', function()
      math.randomseed(3)
      local xs = {}
      for i = 1, 40 do xs[i] = math.random(-50, 50) end
      local t = fused.tensor(xs, opts)
      local r = t:clamp(-10, 20)
      assert.are.equal('int64', r.dtype)
      assert.are.same(map(function(x) return math.min(math.max(x, -10), 20) end, xs), r:cpu():totable())
      assert.are.same(map(function(x) return math.max(x, 0) end, xs), t:clamp(0):cpu():totable())
      local lo = fused.full({ 40 }, -3, opts)
      assert.are.same(map(function(x) return math.min(math.max(x, -3), 7) end, xs),
                      t:clamp(lo, 7):cpu():totable())
      local big = fused.tensor({ 2 ^ 53 }, opts) + 1
      assert.are.equal(big:item(), big:clamp(0, 2 ^ 60):item())
      t:clamp_(-1, 1)
      assert.are.same(map(function(x) return math.min(math.max(x, -1), 1) end, xs), t:cpu():totable())
    end)

    it('refuses a bound that is not an int64 value', function()
      local t = fused.tensor({ 1, -2, 3 }, opts)
      err(function() t:clamp(0.5, 2) end, "clamp: argument 'min' expected an integer", 'got 0.5')
      err(function() t:clamp(nil, 0 / 0) end, "clamp: argument 'max' expected an integer", 'got nan')
      err(function() t:clamp_(0, math.huge) end, "clamp_: argument 'max' expected an integer", 'got inf')
    end)
  end)
end
