-- fused.scan and fused.linear_scan (lua/fused/ops/linear_scan.lua): against a plain Lua loop in
-- float64, their backward by gradcheck, resets, lengths, reverse, S = 2 (a complex diagonal
-- state), the emulated CUDA device against the CPU, and the errors.
local helper = require 'spec.helper'
local fused = helper.fused
local close = helper.assert_close

-- The plain loop over tables: A[t][b][i][j][d], bs[t][b][i][d], h0[b][i][d] or nil; resets[t][b]
-- booleans or nil; lengths a list or nil. Returns h as nested tables.
local function reference(A, bs, h0, resets, lengths, reverse)
  local T, B, S, D = #bs, #bs[1], #bs[1][1], #bs[1][1][1]
  local h = {}
  for t = 1, T do
    h[t] = {}
    for b = 1, B do
      h[t][b] = {}
      for i = 1, S do h[t][b][i] = {} for d = 1, D do h[t][b][i][d] = 0 end end
    end
  end
  for b = 1, B do
    local len = lengths and lengths[b] or T
    local prev
    for k = 1, len do
      local t = reverse and len + 1 - k or k
      if k == 1 or (resets and resets[t][b]) then prev = nil end
      for i = 1, S do
        for d = 1, D do
          local acc = bs[t][b][i][d]
          for j = 1, S do
            local p = prev and prev[j][d] or (h0 and h0[b][j][d] or 0)
            acc = acc + A[t][b][i][j][d] * p
          end
          h[t][b][i][d] = acc
        end
      end
      prev = h[t][b]
    end
  end
  return h
end

local function problem(T, B, S, D, dtype, with_h0)
  local o = { dtype = dtype or 'float64' }
  local A = fused.randn({ T, B, S, S, D }, o):mul_(0.6)
  local b = fused.randn({ T, B, S, D }, o)
  local h0 = with_h0 and fused.randn({ B, S, D }, o) or nil
  return A, b, h0
end

local function resets_of(list) return fused.tensor(list, { dtype = 'bool' }) end

describe('fused.linear_scan', function()
  local cases = {
    { 'S = 1', 1, {} },
    { 'S = 2', 2, {} },
    { 'S = 3 with h0, reverse', 3, { reverse = true }, true },
    { 'S = 2 with resets and h0', 2, { resets = true }, true },
    { 'S = 1 with lengths and resets, reverse', 1, { lengths = { 6, 3, 1 }, resets = true,
                                                     reverse = true }, true },
    { 'S = 4 with lengths, no h0', 4, { lengths = { 2, 6, 5 } } },
  }
  for _, case in ipairs(cases) do
    local name, S, o, with_h0 = case[1], case[2], case[3], case[4]
    it(name .. ' equals the plain loop in float64 (1e-12)', function()
      fused.manual_seed(1)
      -- D = 37 is not a multiple of any vector width: the partial vector runs too.
      local T, B, D = 6, 3, 37
      local A, b, h0 = problem(T, B, S, D, 'float64', with_h0)
      local opts, resets = { lengths = o.lengths, reverse = o.reverse }, nil
      if o.resets then
        resets = { { false, false, false }, { true, false, false }, { false, true, false },
                   { false, false, false }, { true, false, false }, { false, false, false } }
        opts.resets = resets_of(resets)
      end
      local want = reference(A:totable(), b:totable(), h0 and h0:totable(), resets, o.lengths,
                             o.reverse)
      close(fused.linear_scan(A, b, h0, opts), fused.tensor(want, { dtype = 'float64' }), 1e-12, name)
    end)
  end

  it('a row of more than one piece (D > 256 channels) threads and equals the plain loop', function()
    fused.manual_seed(2)
    local A, b, h0 = problem(40, 2, 1, 600, 'float64', true)
    local want = reference(A:totable(), b:totable(), h0:totable())
    close(fused.linear_scan(A, b, h0), fused.tensor(want, { dtype = 'float64' }), 1e-12, 'h')
  end)

  it('S = 2 with rotation coefficients is the complex recurrence h = lambda h + x', function()
    fused.manual_seed(3)
    local T, D = 9, 5
    local ar, ai = fused.rand(T, D):double():mul_(0.9), fused.rand(T, D):double():mul_(0.3)
    local xr, xi = fused.randn(T, D):double(), fused.randn(T, D):double()
    local A = fused.zeros(T, 1, 2, 2, D):double()
    A[{ {}, 1, 1, 1 }]:copy(ar); A[{ {}, 1, 1, 2 }]:copy(-ai)
    A[{ {}, 1, 2, 1 }]:copy(ai); A[{ {}, 1, 2, 2 }]:copy(ar)
    local b = fused.stack({ xr, xi }, 2):view(T, 1, 2, D)
    local h = fused.linear_scan(A, b):totable()
    ar, ai, xr, xi = ar:totable(), ai:totable(), xr:totable(), xi:totable()
    local re, im = {}, {}
    for d = 1, D do re[d], im[d] = 0, 0 end
    for t = 1, T do
      for d = 1, D do
        local lr, li = ar[t][d], ai[t][d]
        re[d], im[d] = lr * re[d] - li * im[d] + xr[t][d], li * re[d] + lr * im[d] + xi[t][d]
        assert.is_true(math.abs(h[t][1][1][d] - re[d]) < 1e-12)
        assert.is_true(math.abs(h[t][1][2][d] - im[d]) < 1e-12)
      end
    end
  end)

  local grad_cases = {
    { 'plain', 2, {} },
    { 'reverse', 2, { reverse = true } },
    { 'resets and lengths', 2, { lengths = { 5, 3 }, resets = { { false, false }, { false, true },
                                                                 { true, false }, { false, false },
                                                                 { false, false } } } },
    { 'resets, lengths, reverse, S = 3', 3, { lengths = { 4, 5 }, reverse = true,
                                              resets = { { false, true }, { false, false },
                                                         { true, false }, { false, false },
                                                         { false, false } } } },
  }
  for _, case in ipairs(grad_cases) do
    local name, S, o = case[1], case[2], case[3]
    it('backward passes gradcheck in float64: ' .. name, function()
      fused.manual_seed(4)
      local A, b, h0 = problem(5, 2, S, 3, 'float64', true)
      local opts = { lengths = o.lengths, reverse = o.reverse,
                     resets = o.resets and resets_of(o.resets) }
      local ok, worst = fused.gradcheck({
        forward = function(A_, b_, h0_)
          local h = fused.linear_scan(A_, b_, h0_, opts)
          return h, { A = A_, h = h, h0 = h0_ }
        end,
        backward = function(ctx, d_h)
          return fused.linear_scan_backward(d_h, ctx.A, ctx.h, ctx.h0, opts)
        end,
      }, { A, b, h0 }, { atol = 1e-8, rtol = 1e-6 })
      assert.is_true(ok, worst and worst.message)
    end)
  end

  it('steps past a row\'s length are 0 in h and in every gradient', function()
    fused.manual_seed(5)
    local A, b, h0 = problem(4, 2, 2, 3, 'float64', true)
    local opts = { lengths = { 4, 2 } }
    local h = fused.linear_scan(A, b, h0, opts)
    local d_A, d_b = fused.linear_scan_backward(fused.ones(h:shape(), { dtype = 'float64' }), A, h, h0, opts)
    for _, t in ipairs({ h, d_b, d_A }) do
      assert.are.equal(0, t[{ { 3, 4 }, 2 }]:abs():sum())
      assert.is_true(t[{ {}, 1 }]:abs():sum() > 0)
    end
  end)
end)

describe('fused.scan', function()
  it('is h_t = a_t h_{t-1} + b_t over (T, ...) with h0 of one step, as the plain loop', function()
    fused.manual_seed(6)
    local a, b, h0 = fused.rand(7, 2, 3, 4):double(), fused.randn(7, 2, 3, 4):double(),
                     fused.randn(2, 3, 4):double()
    local h = fused.scan(a, b, h0)
    assert.are.same({ 7, 2, 3, 4 }, h:shape())
    local prev = h0:clone()
    for t = 1, 7 do
      prev = a[t] * prev + b[t]
      close(h[t], prev, 1e-12, 'step ' .. t)
    end
    -- a 1-D scan: one channel
    local a1, b1 = fused.rand(5):double(), fused.randn(5):double()
    local h1, p = fused.scan(a1, b1), 0
    for t = 1, 5 do
      p = a1[t] * p + b1[t]
      assert.is_true(math.abs(h1[t] - p) < 1e-12)
    end
  end)

  it('takes lengths, resets and reverse on a (T, B, ...) layout', function()
    fused.manual_seed(7)
    local T, B = 6, 3
    local a, b = fused.rand(T, B, 5):double(), fused.randn(T, B, 5):double()
    local h0 = fused.randn(B, 5):double()
    local resets = fused.zeros(T, B, { dtype = 'bool' })
    resets[3][1] = true
    resets[2][3] = true
    local lengths = { 6, 4, 2 }
    local h = fused.scan(a, b, h0, { lengths = lengths, resets = resets, reverse = true })
    for r = 1, B do
      local prev = h0[r]
      for k = 1, lengths[r] do
        local t = lengths[r] + 1 - k
        if resets[t][r] then prev = h0[r] end
        prev = a[t][r] * prev + b[t][r]
        close(h[t][r], prev, 1e-12, string.format('row %d step %d', r, t))
      end
      for t = lengths[r] + 1, T do assert.are.equal(0, h[t][r]:abs():sum()) end
    end
  end)

  it('scan_backward passes gradcheck in float64, with resets and lengths', function()
    fused.manual_seed(8)
    local a, b, h0 = fused.rand(5, 2, 3):double(), fused.randn(5, 2, 3):double(),
                     fused.randn(2, 3):double()
    local opts = { lengths = { 5, 3 }, resets = resets_of({ { false, false }, { false, true },
                                                           { true, false }, { false, false },
                                                           { false, false } }) }
    local ok, worst = fused.gradcheck({
      forward = function(a_, b_, h0_)
        local h = fused.scan(a_, b_, h0_, opts)
        return h, { a = a_, h = h, h0 = h0_ }
      end,
      backward = function(ctx, d_h) return fused.scan_backward(d_h, ctx.a, ctx.h, ctx.h0, opts) end,
    }, { a, b, h0 }, { atol = 1e-8, rtol = 1e-6 })
    assert.is_true(ok, worst and worst.message)
  end)

  it('float32 agrees with float64', function()
    fused.manual_seed(9)
    local a, b = fused.rand(50, 4, 70):mul_(0.99), fused.randn(50, 4, 70)
    close(fused.scan(a, b), fused.scan(a:double(), b:double()):float(), 1e-5, 'h')
  end)
end)

describe('linear scan errors', function()
  local a, b = fused.rand(4, 2, 3):double(), fused.randn(4, 2, 3):double()
  local cases = {
    { 'b of another shape', function() fused.scan(a, fused.zeros(4, 2):double()) end,
      "scan: argument 'b' expected shape [4, 2, 3] (a's), got [4, 2]" },
    { 'b of another dtype', function() fused.scan(a, b:float()) end,
      "scan: argument 'b' expected float64 on cpu (as 'a'), got float32 on cpu" },
    { 'h0 of the wrong shape', function() fused.scan(a, b, fused.zeros(4, 2, 3):double()) end,
      "scan: argument 'h0' expected shape [2, 3] (one step of a), got [4, 2, 3]" },
    { 'an unknown option', function() fused.scan(a, b, nil, { dim = 1 }) end,
      "scan: unknown option 'dim' (expected one of: lengths, resets, reverse)" },
    { 'resets of a float dtype', function()
        fused.scan(a, b, nil, { resets = fused.zeros(4, 2):double() })
      end, "scan: option 'resets' expected a bool tensor of shape [4, 2] (T, B) on cpu (a 0/1 "
           .. "tensor of another dtype: resets:ne(0)), got a float64 tensor of shape [4, 2] on "
           .. 'cpu' },
    { 'resets of int64 0/1 flags', function()
        fused.scan(a, b, nil, { resets = fused.zeros(4, 2, { dtype = 'int64' }) })
      end, "scan: option 'resets' expected a bool tensor of shape [4, 2] (T, B) on cpu (a 0/1 "
           .. "tensor of another dtype: resets:ne(0)), got an int64 tensor of shape [4, 2] on cpu" },
    { 'resets of the wrong shape', function()
        fused.scan(a, b, nil, { resets = fused.zeros(2, 4, { dtype = 'bool' }) })
      end, "scan: option 'resets' expected a bool tensor of shape [4, 2] (T, B) on cpu (a 0/1 "
           .. "tensor of another dtype: resets:ne(0)), got a bool tensor of shape [2, 4] on cpu" },
    { 'resets as a table of flags (the same error as the layer\'s)', function()
        fused.scan(a, b, nil, { resets = { { true, false } } })
      end, "scan: option 'resets' expected a bool tensor of shape [4, 2] (T, B) on cpu (a 0/1 "
           .. "tensor of another dtype: resets:ne(0)), got table" },
    { 'a reset past a row\'s length', function()
        local r = fused.zeros(4, 2, { dtype = 'bool' })
        r[4][2] = true
        fused.scan(a, b, nil, { resets = r, lengths = { 4, 3 } })
      end, "scan: option 'resets' expected no reset past a row's length, got one at step 4 of row "
           .. "2, whose length is 3" },
    { 'lengths beyond T', function() fused.scan(a, b, nil, { lengths = { 5, 1 } }) end,
      "scan: argument 'lengths' expected integers 1 to 4 (T from 'a'), got 5 at position 1" },
    { 'lengths of another count', function() fused.scan(a, b, nil, { lengths = { 4 } }) end,
      "scan: argument 'lengths' expected 2 step counts (B from 'a'), got 1" },
    { 'linear_scan: lengths beyond T', function()
        fused.linear_scan(fused.zeros(2, 1, 1, 1, 3):double(), fused.zeros(2, 1, 1, 3):double(), nil,
                          { lengths = { 3 } })
      end, "linear_scan: argument 'lengths' expected integers 1 to 2 (T from 'b'), got 3" },
    { 'reverse not a boolean', function() fused.scan(a, b, nil, { reverse = 1 }) end,
      "scan: option 'reverse' expected a boolean, got number" },
    { 'an integer dtype', function() fused.scan(a:trunc():long(), b:trunc():long()) end,
      "scan: argument 'a' expected a floating dtype (float32 or float64), got int64" },
    { 'lengths on a 1-D input', function() fused.scan(fused.rand(3), fused.rand(3), nil,
                                                      { lengths = { 2 } }) end,
      "scan: options 'lengths' and 'resets' expected a (T, B, ...) layout, got a 1-D [3]" },
    { 'an extra argument', function() fused.scan(a, b, nil, nil, 1) end,
      "scan: takes (a, b, h0, opts), got an extra argument 5: the number 1" },
    { 'linear_scan: more states than the engine holds', function()
        fused.linear_scan(fused.zeros(2, 1, 5, 5, 3):double(), fused.zeros(2, 1, 5, 3):double())
      end, "linear_scan: argument 'b' expected 1 to 4 states in dim 3, got 5" },
    { 'linear_scan: A of the wrong shape', function()
        fused.linear_scan(fused.zeros(2, 1, 2, 3):double(), fused.zeros(2, 1, 2, 3):double())
      end, "linear_scan: argument 'A' expected shape [2, 1, 2, 2, 3] (T, B, S, S, D), got [2, 1, 2, 3]" },
  }
  for _, case in ipairs(cases) do
    it(case[1], function() helper.assert_error(case[2], case[3]) end)
  end
end)

describe('the linear scan on the GPU', function()
  for _, dtype in ipairs({ 'float64', 'float32' }) do
    helper.gpu_it('forward and backward agree with the CPU in ' .. dtype
                  .. ' (S = 1 and 2; resets, lengths, reverse; T over several pieces)', function()
      fused.manual_seed(10)
      local tol = dtype == 'float64' and 1e-12 or 1e-5
      for _, S in ipairs({ 1, 2 }) do
        for _, reverse in ipairs({ false, true }) do
          local T, B, D = 37, 3, 40
          local A, b, h0 = problem(T, B, S, D, dtype, true)
          local resets = fused.zeros(T, B, { dtype = 'bool' })
          resets[5][1], resets[20][2], resets[1][3], resets[30][1] = true, true, true, true
          local lengths = { 37, 25, 9 }
          local opts = { lengths = lengths, resets = resets, reverse = reverse }
          local gopts = { lengths = lengths, resets = resets:cuda(), reverse = reverse }
          local h = fused.linear_scan(A, b, h0, opts)
          local gh = fused.linear_scan(A:cuda(), b:cuda(), h0:cuda(), gopts)
          close(gh:to('cpu'), h, tol, 'h')
          local d_h = fused.randn(h:shape(), { dtype = dtype })
          local want = { fused.linear_scan_backward(d_h, A, h, h0, opts) }
          local got = { fused.linear_scan_backward(d_h:cuda(), A:cuda(), gh, h0:cuda(), gopts) }
          for k = 1, 3 do close(got[k]:to('cpu'), want[k], tol, 'gradient ' .. k) end
        end
      end
    end)
  end

  helper.gpu_it('gives the CPU\'s errors', function()
    local a, b = fused.rand(4, 2):double():cuda(), fused.rand(4, 2):double():cuda()
    helper.assert_error(function() fused.scan(a, b, nil, { resets = fused.zeros(4, 2, { dtype = 'bool' }) }) end,
                        "scan: option 'resets' expected a bool tensor of shape [4, 2] (T, B) on cuda (a "
                        .. "0/1 tensor of another dtype: resets:ne(0)), got a bool tensor of shape "
                        .. "[4, 2] on cpu")
    helper.assert_error(function() fused.scan(a, b:to('cpu')) end,
                        "scan: argument 'b' expected float64 on cuda (as 'a'), got float64 on cpu")
    local r = fused.zeros(4, 2, { dtype = 'bool' })
    r[3][1] = true
    helper.assert_error(function() fused.scan(a, b, nil, { resets = r:cuda(), lengths = { 2, 4 } }) end,
                        "scan: option 'resets' expected no reset past a row's length, got one at "
                        .. "step 3 of row 1, whose length is 2")
  end)
end)

describe('fused.nn.Scan and the tape', function()
  it('the module runs fused.scan forward and scan_backward backward, reverse its option', function()
    fused.manual_seed(11)
    local a, b, h0 = fused.rand(6, 2, 3):double(), fused.randn(6, 2, 3):double(),
                     fused.randn(2, 3):double()
    local m = fused.nn.Scan({ reverse = true })
    local resets = resets_of({ { false, false }, { false, true }, { false, false },
                               { true, false }, { false, false }, { false, false } })
    local opts = { lengths = { 6, 4 }, resets = resets, reverse = true }
    local h = m:forward(a, b, h0, { lengths = { 6, 4 }, resets = resets })
    close(h, fused.scan(a, b, h0, opts), 0, 'h')
    local d_h = fused.randn(6, 2, 3):double()
    local got, want = { m:backward(d_h) }, { fused.scan_backward(d_h, a, h, h0, opts) }
    for k = 1, 3 do close(got[k], want[k], 0, 'gradient ' .. k) end
    helper.assert_error(function() m:forward(a, b:float()) end,
                        "Scan:forward: argument 'b' expected float64 on cpu (the module's), got float32")
    helper.assert_error(function() fused.nn.Scan({ dim = 1 }) end, "Scan: unknown option 'dim'")
  end)

  it('the module\'s backward goes through forward\'s lengths and resets, whatever is written in '
     .. 'them after', function()
    fused.manual_seed(13)
    local a, b, h0 = fused.rand(5, 2, 3):double(), fused.randn(5, 2, 3):double(),
                     fused.randn(2, 3):double()
    local d_h = fused.randn(5, 2, 3):double()
    local m = fused.nn.Scan()
    local lengths, resets = { 5, 3 }, fused.zeros(5, 2, { dtype = 'bool' })
    resets[2][1] = true
    local opts = { lengths = { 5, 3 }, resets = resets:clone() }
    local want = { fused.scan_backward(d_h, a, fused.scan(a, b, h0, opts), h0, opts) }
    m:forward(a, b, h0, { lengths = lengths, resets = resets })
    lengths[2] = 5
    resets:fill(false)
    local got = { m:backward(d_h) }
    for k = 1, 3 do close(got[k], want[k], 0, 'gradient ' .. k) end
    local tensor = fused.tensor({ 5, 3 }, { dtype = 'int64' })
    m:forward(a, b, h0, { lengths = tensor, resets = opts.resets })
    tensor:fill(5)
    got = { m:backward(d_h) }
    for k = 1, 3 do close(got[k], want[k], 0, 'gradient ' .. k .. ' (an int64 tensor of lengths)') end
  end)

  it("the module's errors in lengths and resets name Scan:forward and the argument", function()
    local a, b = fused.rand(4, 2, 3):double(), fused.randn(4, 2, 3):double()
    local m = fused.nn.Scan({ reverse = true })
    helper.assert_error(function() m:forward(a, b, nil, { resets = fused.zeros(4, 2):double() }) end,
                        "Scan:forward: option 'resets' expected a bool tensor of shape [4, 2] (T, B) "
                        .. 'on cpu (a 0/1 tensor of another dtype: resets:ne(0)), got a float64 '
                        .. 'tensor of shape [4, 2] on cpu')
    helper.assert_error(function() m:forward(a, b, nil, { resets = fused.zeros(2, 4, { dtype = 'bool' }) }) end,
                        "Scan:forward: option 'resets' expected a bool tensor of shape [4, 2]")
    local r = fused.zeros(4, 2, { dtype = 'bool' })
    r[4][2] = true
    helper.assert_error(function() m:forward(a, b, nil, { resets = r, lengths = { 4, 3 } }) end,
                        "Scan:forward: option 'resets' expected no reset past a row's length, got "
                        .. 'one at step 4 of row 2, whose length is 3')
    helper.assert_error(function() m:forward(a, b, nil, { lengths = { 5, 1 } }) end,
                        "Scan:forward: argument 'lengths' expected integers 1 to 4 (T from 'a'), got 5")
  end)

  it('fused.grad goes through fused.scan and fused.linear_scan (their backwards)', function()
    fused.manual_seed(12)
    local a, b, h0 = fused.rand(5, 2, 3):double(), fused.randn(5, 2, 3):double(),
                     fused.randn(2, 3):double()
    local w = fused.randn(5, 2, 3):double()
    local opts = { lengths = { 5, 2 } }
    local df = fused.grad(function(p) return fused.scan(p.a, p.b, p.h0, opts):mul(w):sum() end)
    local grads = df({ a = a, b = b, h0 = h0 })
    local h = fused.scan(a, b, h0, opts)
    local d_a, d_b, d_h0 = fused.scan_backward(w, a, h, h0, opts)
    close(grads.a, d_a, 1e-14, 'd_a')
    close(grads.b, d_b, 1e-14, 'd_b')
    close(grads.h0, d_h0, 1e-14, 'd_h0')
    local A, bs = problem(4, 2, 2, 3, 'float64')
    local w2 = fused.randn(4, 2, 2, 3):double()
    local g2 = fused.grad(function(p) return fused.linear_scan(p.A, p.b):mul(w2):sum() end)({ A = A, b = bs })
    local d_A, d_bs = fused.linear_scan_backward(w2, A, fused.linear_scan(A, bs), nil)
    close(g2.A, d_A, 1e-14, 'd_A')
    close(g2.b, d_bs, 1e-14, 'd_b')
  end)
end)
