-- Shape: views (unsqueeze, squeeze, permute, expand, flatten, view and reshape with sizes as
-- numbers), stack, mv, bmm, outer, t:size() as a fused.Size, t:type().
local helper = require 'spec.helper'
local fused = helper.fused

describe('shape', function()
  it('unsqueeze and squeeze add and drop dims of size 1, sharing the storage', function()
    local t = fused.arange(6, { dtype = 'float64' }):view(2, 3)
    assert.are.same({ 1, 2, 3 }, t:unsqueeze(1):shape())
    assert.are.same({ 2, 3, 1 }, t:unsqueeze(-1):shape())
    assert.are.same({ 2, 1, 3 }, t:unsqueeze(2):shape())
    assert.are.same(t:totable(), t:unsqueeze(2):squeeze():totable())
    assert.are.same({ 2, 3 }, fused.zeros(1, 2, 1, 3):squeeze():shape())
    assert.are.same({ 2, 1, 3 }, fused.zeros(1, 2, 1, 3):squeeze(1):shape())
    assert.are.same({}, fused.zeros(1, 1):squeeze():shape()) -- 0-d, as PyTorch's
    assert.are.same({}, fused.zeros(1):squeeze(1):shape())
    t:unsqueeze(1)[1][2][3] = 50
    assert.are.equal(50, t[2][3])
    helper.assert_error(function() t:unsqueeze(4) end, "unsqueeze: argument 'dim' expected a dim in 1..3, got 4")
  end)

  it('permute reorders dims; expand repeats dims of size 1 with stride 0', function()
    local t = fused.arange(24):view(2, 3, 4)
    local p = t:permute(3, 1, 2)
    assert.are.same({ 4, 2, 3 }, p:shape())
    assert.are.equal(t[2][3][4], p[4][2][3])
    assert.are.same({ 4, 2, 3 }, t:permute({ 3, 1, 2 }):shape())
    local e = fused.tensor({ { 1 }, { 2 } }):expand(3, 2, 4)
    assert.are.same({ 3, 2, 4 }, e:shape())
    assert.are.same({ 0, 1, 0 }, e:stride())
    assert.are.same({ { 1, 1, 1, 1 }, { 2, 2, 2, 2 } }, e[3]:totable())
    assert.are.same({ 2, 5 }, fused.zeros(2, 1):expand({ -1, 5 }):shape())
    helper.assert_error(function() t:permute(1, 1, 2) end, 'permute', 'dim 1 twice')
    helper.assert_error(function() t:expand(2, 5, 4) end, "expand: argument 'sizes' {2, 5, 4} does not fit shape {2, 3, 4}")
  end)

  it('flatten, view and reshape take sizes as numbers; reshape copies a view when it must', function()
    local t = fused.arange(24):view(2, 3, 4)
    assert.are.same({ 24 }, t:flatten():shape())
    assert.are.same({ 2, 12 }, t:flatten(2):shape())
    assert.are.same({ 6, 4 }, t:flatten(1, 2):shape())
    local tt = t:transpose(1, 3) -- 4 x 3 x 2, not contiguous
    local f = tt:flatten()
    assert.are.equal(t[2][1][1], f[2])
    assert.are.same({ 4, 6 }, tt:reshape(4, -1):shape())
    assert.are.same({ 3, 8 }, t:view(3, 8):shape())
    helper.assert_error(function() t:flatten(3, 1) end, "flatten: argument 'start_dim' (3) expected at most 'end_dim' (1)")
  end)

  it('stack joins along a new dim', function()
    local a, b = fused.tensor({ 1, 2 }), fused.tensor({ 3, 4 })
    assert.are.same({ { 1, 2 }, { 3, 4 } }, fused.stack({ a, b }):totable())
    assert.are.same({ { 1, 3 }, { 2, 4 } }, fused.stack({ a, b }, 2):totable())
    helper.assert_error(function() fused.stack({}) end, "stack: argument 'tensors' expected a non-empty list")
  end)

  for _, dtype in ipairs({ 'float32', 'float64' }) do
    it('mv, outer and bmm match plain-Lua products (' .. dtype .. ')', function()
      local opts = { dtype = dtype }
      local A = fused.randn(3, 5, opts)
      local x = fused.randn(5, opts)
      local a, xs = A:totable(), x:totable()
      local ref = {}
      for i = 1, 3 do
        ref[i] = 0
        for j = 1, 5 do ref[i] = ref[i] + a[i][j] * xs[j] end
      end
      helper.assert_close(fused.mv(A, x), fused.tensor(ref, opts), 1e-6, 'mv')
      helper.assert_close(A:t():mv(fused.ones(3, opts)), A:sum(1):view(5), 1e-6, 'mv of a transposed view')
      local o = fused.outer(fused.tensor({ 1, 2 }, opts), fused.tensor({ 3, 4, 5 }, opts))
      assert.are.same({ { 3, 4, 5 }, { 6, 8, 10 } }, o:totable())
      local B1, B2 = fused.randn(4, 3, 5, opts), fused.randn(4, 5, 2, opts)
      local r = fused.bmm(B1, B2)
      assert.are.same({ 4, 3, 2 }, r:shape())
      for i = 1, 4 do helper.assert_close(r[i], fused.matmul(B1[i], B2[i]), 1e-6, 'bmm batch ' .. i) end
      helper.assert_close(fused.bmm(B1, B2:transpose(2, 3):contiguous():transpose(2, 3)), r, 1e-6, 'bmm of views')
    end)
  end

  it('mv and bmm say what shapes they expect', function()
    helper.assert_error(function() fused.mv(fused.zeros(2, 3), fused.zeros(2, 3)) end, "mv: expected a matrix 'a' and a vector 'v', got 2 and 2 dims")
    helper.assert_error(function() fused.bmm(fused.zeros(2, 3, 4), fused.zeros(3, 4, 1)) end, 'bmm: expected two 3-D tensors of one batch size')
  end)

  it('size() is a printable list; size(d) a number; type() names the class', function()
    local t = fused.zeros(2, 3)
    local s = t:size()
    assert.are.equal('fused.Size({2, 3})', tostring(s))
    assert.are.equal(3, s[2])
    assert.are.equal(2, #s)
    assert.are.equal(6, s:numel())
    assert.is_true(s == fused.Size({ 2, 3 }))
    assert.are.equal(3, t:size(2))
    assert.are.same({ 2, 3 }, fused.zeros(t:size()):shape())
    assert.are.equal('fused.FloatTensor', t:type())
    assert.are.equal('fused.DoubleTensor', t:double():type())
    assert.are.equal('fused.LongTensor', fused.arange(2):type())
    assert.are.equal('fused.BoolTensor', t:eq(0):type())
    assert.are.equal('float64', t:type('fused.DoubleTensor').dtype)
    helper.assert_error(function() t:type('torch.FloatTensor') end, "type: argument 'name' expected a class")
  end)
end)
