-- Inside `fused th`, Torch7's meanings of the Tensor methods (lua/fused/th/torch/tensor.lua),
-- each form against the same computed in plain Lua; outside it (after uninstall), fused's.
-- Float64 throughout, held to 1e-10.
local fused = require 'fused'
local th = require 'fused.th'

local function T(values) return fused.tensor(values, { dtype = 'float64' }) end

-- Plain Lua: f over the elements of lists (nested to any depth), element by element.
local function map(f, ...)
  local lists = { ... }
  local out = {}
  for i, v in ipairs(lists[1]) do
    local args = {}
    for j, l in ipairs(lists) do args[j] = type(l) == 'table' and l[i] or l end
    out[i] = type(v) == 'table' and map(f, unpack(args)) or f(unpack(args))
  end
  return out
end

local function close(expected, t, what)
  local got = type(t) == 'number' and t or t:totable()
  local function walk(e, g, at)
    if type(e) == 'table' then
      assert(type(g) == 'table' and #g == #e, (what or '') .. ': shape differs at ' .. at)
      for i = 1, #e do walk(e[i], g[i], at .. '[' .. i .. ']') end
    else
      assert(math.abs(e - g) <= 1e-10, string.format('%s: %s%s expected %.17g, got %.17g', what or '', 'at ', at, e, g))
    end
  end
  walk(expected, got, '')
end

local A = { { 0.5, -1.25, 2 }, { 3.5, -0.75, 0.125 } }
local B = { { 1.5, 2.25, -0.5 }, { 0.25, 4, -3 } }
local P = { { 0.5, 1.25, 2 }, { 3.5, 0.75, 0.125 } } -- positive

local unary = {
  abs = math.abs, exp = math.exp, log = math.log, sqrt = math.sqrt,
  tanh = function(x) return (math.exp(x) - math.exp(-x)) / (math.exp(x) + math.exp(-x)) end,
  sigmoid = function(x) return 1 / (1 + math.exp(-x)) end, neg = function(x) return -x end,
  sign = function(x) return x > 0 and 1 or x < 0 and -1 or 0 end, floor = math.floor, ceil = math.ceil,
  trunc = function(x) return x < 0 and math.ceil(x) or math.floor(x) end,
}

describe('Torch7 mode (fused th)', function()
  setup(function() th.install() end)
  teardown(function() th.uninstall() end)

  for name, f in pairs(unary) do
    it(string.format('x:%s() is in place and y:%s(x) writes y', name, name), function()
      local src = (name == 'log' or name == 'sqrt') and P or A
      local x = T(src)
      assert.are.equal(x, x[name](x))
      close(map(f, src), x, name .. ' in place')
      local y, x2 = T({ 0 }), T(src)
      assert.are.equal(y, y[name](y, x2))
      close(map(f, src), y, name .. ' into y')
      close(src, x2, name .. ' leaves x')
    end)
  end

  it('add: x:add(v), x:add(y), x:add(v, y) in place; z:add(x, v), z:add(x, y), z:add(x, v, y)', function()
    local x = T(A); x:add(2); close(map(function(a) return a + 2 end, A), x)
    x = T(A); x:add(T(B)); close(map(function(a, b) return a + b end, A, B), x)
    x = T(A); x:add(3, T(B)); close(map(function(a, b) return a + 3 * b end, A, B), x)
    local z = T({ 1 })
    z:add(T(A), 2); close(map(function(a) return a + 2 end, A), z)
    z:add(T(A), T(B)); close(map(function(a, b) return a + b end, A, B), z)
    z:add(T(A), -2, T(B)); close(map(function(a, b) return a - 2 * b end, A, B), z)
    assert.has_error(function() x:add('a') end, "add: Torch7's forms are x:add(v), x:add(y), x:add(v, y) in place and z:add(x, v), z:add(x, y), z:add(x, v, y); got (string)")
  end)

  it('csub: x:csub(y) in place, z:csub(x, v, y)', function()
    local x = T(A); x:csub(T(B)); close(map(function(a, b) return a - b end, A, B), x)
    local z = T({ 0 }); z:csub(T(A), 2, T(B)); close(map(function(a, b) return a - 2 * b end, A, B), z)
  end)

  it('mul, div: x:mul(v) in place, y:mul(x, v) into y', function()
    local x = T(A); x:mul(3); close(map(function(a) return a * 3 end, A), x)
    x = T(A); x:div(4); close(map(function(a) return a / 4 end, A), x)
    local y = T({ 0 }); y:mul(T(A), -2); close(map(function(a) return a * -2 end, A), y)
    y:div(T(A), 8); close(map(function(a) return a / 8 end, A), y)
    assert.has_error(function() x:mul(T(B)) end)
  end)

  it('cmul, cdiv: x:cmul(y) in place, z:cmul(x, y)', function()
    local x = T(A); x:cmul(T(B)); close(map(function(a, b) return a * b end, A, B), x)
    x = T(A); x:cdiv(T(B)); close(map(function(a, b) return a / b end, A, B), x)
    local z = T({ 0 }); z:cmul(T(A), T(B)); close(map(function(a, b) return a * b end, A, B), z)
    z:cdiv(T(A), T(B)); close(map(function(a, b) return a / b end, A, B), z)
  end)

  it('pow: x:pow(v) in place, y:pow(x, v), y:pow(v, x)', function()
    local x = T(P); x:pow(3); close(map(function(a) return a ^ 3 end, P), x)
    local y = T({ 0 }); y:pow(T(P), 0.5); close(map(function(a) return a ^ 0.5 end, P), y)
    y:pow(2, T(A)); close(map(function(a) return 2 ^ a end, A), y)
  end)

  it('clamp: x:clamp(lo, hi) in place, y:clamp(x, lo, hi)', function()
    local f = function(a) return math.min(math.max(a, -1), 1) end
    local x = T(A); x:clamp(-1, 1); close(map(f, A), x)
    local y = T({ 0 }); y:clamp(T(A), -1, 1); close(map(f, A), y)
  end)

  it('addcmul, addcdiv: x:addcmul([v,] a, b) in place, y:addcmul(x, [v,] a, b)', function()
    local x = T(A); x:addcmul(T(B), T(P)); close(map(function(a, b, p) return a + b * p end, A, B, P), x)
    x = T(A); x:addcmul(0.5, T(B), T(P)); close(map(function(a, b, p) return a + 0.5 * b * p end, A, B, P), x)
    x = T(A); x:addcdiv(2, T(B), T(P)); close(map(function(a, b, p) return a + 2 * b / p end, A, B, P), x)
    local y = T({ 0 }); y:addcdiv(T(A), T(B), T(P)); close(map(function(a, b, p) return a + b / p end, A, B, P), y)
    y:addcmul(T(A), -1, T(B), T(P)); close(map(function(a, b, p) return a - b * p end, A, B, P), y)
  end)

  -- Plain Lua matrix products.
  local function mm(a, b)
    local r = {}
    for i = 1, #a do
      r[i] = {}
      for j = 1, #b[1] do
        local s = 0
        for k = 1, #b do s = s + a[i][k] * b[k][j] end
        r[i][j] = s
      end
    end
    return r
  end
  local Bt = { { 1.5, 0.25 }, { 2.25, 4 }, { -0.5, -3 } } -- 3x2
  local M22 = { { 1, 2 }, { 3, 4 } }

  it('mm, mv, ger into the result; addmm, addmv, addr with beta, src, alpha', function()
    local y = T({ 0 }); y:mm(T(A), T(Bt)); close(mm(A, Bt), y, 'mm')
    local v = T({ 0 }); v:mv(T(A), T({ 1, 2, 3 })); close({ 0.5 - 2.5 + 6, 3.5 - 1.5 + 0.375 }, v, 'mv')
    local g = T({ 0 }); g:ger(T({ 1, 2 }), T({ 3, 4 })); close({ { 3, 4 }, { 6, 8 } }, g, 'ger')
    local ab = mm(A, Bt)
    local m = T(M22); m:addmm(T(A), T(Bt)); close(map(function(c, p) return c + p end, M22, ab), m, 'addmm')
    m = T(M22); m:addmm(2, T(A), T(Bt)); close(map(function(c, p) return c + 2 * p end, M22, ab), m, 'addmm v')
    m = T(M22); m:addmm(0.5, 2, T(A), T(Bt)); close(map(function(c, p) return 0.5 * c + 2 * p end, M22, ab), m, 'addmm beta alpha')
    m = T({ 0 }); m:addmm(T(M22), T(A), T(Bt)); close(map(function(c, p) return c + p end, M22, ab), m, 'addmm src')
    m = T({ 0 }); m:addmm(3, T(M22), 2, T(A), T(Bt)); close(map(function(c, p) return 3 * c + 2 * p end, M22, ab), m, 'addmm all')
    local u = T({ 1, 1 }); u:addmv(T(A), T({ 1, 2, 3 })); close({ 1 + 4, 1 + 2.375 }, u, 'addmv')
    local r = T(M22); r:addr(T({ 1, 2 }), T({ 3, 4 })); close({ { 4, 6 }, { 9, 12 } }, r, 'addr')
  end)

  it('sum, mean, cumsum, max: y:sum(x, d) into y; x:sum(d) and x:max(d) as fused', function()
    local y = T({ 0 }); y:sum(T(A), 2); close({ { 1.25 }, { 2.875 } }, y, 'sum into')
    close({ { 1.25 }, { 2.875 } }, T(A):sum(2), 'sum(d)')
    close(4.125, T(A):sum(), 'sum()')
    y:mean(T(A), 1); close({ { 2, -1, 1.0625 } }, y, 'mean into')
    y:cumsum(T({ 1, 2, 3 }), 1); close({ 1, 3, 6 }, y, 'cumsum into')
    local v, i = T(A):max(2)
    close({ { 2 }, { 3.5 } }, v); assert.are.same({ { 3 }, { 1 } }, i:totable())
    local vals, idx = T({ 0 }), fused.tensor({ 0 }, { dtype = 'int64' })
    vals:min(idx, T(A), 2)
    close({ { -1.25 }, { -0.75 } }, vals); assert.are.same({ { 2 }, { 2 } }, idx:totable())
  end)

  it('topk: the k smallest by default, the largest with dir true', function()
    local v, i = T({ 3, 1, 4, 1.5, 5 }):topk(2)
    close({ 1, 1.5 }, v); assert.are.same({ 2, 4 }, i:totable())
    v = T({ 3, 1, 4, 1.5, 5 }):topk(2, 1, true)
    close({ 5, 4 }, v)
  end)

  it('sub: a view of ranges on the leading dims, negative from the end', function()
    local x = T(A)
    local s = x:sub(1, 2, 2, -1)
    close({ { -1.25, 2 }, { -0.75, 0.125 } }, s)
    s:fill(7)
    close({ { 0.5, 7, 7 }, { 3.5, 7, 7 } }, x, 'a view')
    close({ { 3.5, -0.75, 0.125 } }, T(A):sub(2, 2))
    assert.has_error(function() x:sub(1, 3) end, 'sub: the range 1..3 of dim 1 is outside 1..2')
  end)

  it('type strings, type(name) converting, typeAs', function()
    assert.are.equal('torch.DoubleTensor', T(A):type())
    assert.are.equal('torch.FloatTensor', fused.zeros(2):type())
    assert.are.equal('torch.LongTensor', fused.tensor({ 1 }, { dtype = 'int64' }):type())
    assert.are.equal('torch.ByteTensor', T(A):gt(0):type())
    local f = T(A):type('torch.FloatTensor')
    assert.are.equal('float32', f.dtype)
    assert.are.equal('float64', f:typeAs(T(A)).dtype)
    assert.has_error(function() T(A):type('torch.Nope') end)
  end)

  it('resize, resizeAs, set, new, storage', function()
    local x = T({ 1, 2, 3, 4, 5, 6 })
    assert.are.equal(x, x:resize(2, 3))
    close({ { 1, 2, 3 }, { 4, 5, 6 } }, x, 'resize keeps the elements')
    x:resize(4)
    assert.are.same({ 4 }, x:shape())
    local y = T({ 0 })
    y:resizeAs(T(A)); assert.are.same({ 2, 3 }, y:shape())
    local base, view = T(A), T({ 0 })
    view:set(base)
    view[{ 1, 1 }] = 9
    assert.are.equal(9, base[{ 1, 1 }])
    local n = base:new(2, 2)
    assert.are.same({ 2, 2 }, n:shape()); assert.are.equal('float64', n.dtype)
    local s = base:storage()
    assert.are.equal(6, s:size(1))
  end)

  it('index, maskedFill and maskedSelect with a ByteTensor mask (0 and 1)', function()
    local x = T(A)
    close({ { 3.5, -0.75, 0.125 } }, x:index(1, fused.tensor({ 2 }, { dtype = 'int64' })))
    local mask = fused.tensor({ { 1, 0, 1 }, { 0, 0, 1 } }, { dtype = 'int64' })
    close({ 0.5, 2, 0.125 }, x:maskedSelect(mask))
    x:maskedFill(mask, 0)
    close({ { 0, -1.25, 0 }, { 3.5, -0.75, 0 } }, x)
  end)

  it("fused's own names still work: add_, and fused.add returns a new tensor", function()
    local x = T(A)
    local z = fused.add(x, T(B))
    close(A, x, 'fused.add leaves x')
    close(map(function(a, b) return a + b end, A, B), z)
    x:add_(1)
    close(map(function(a) return a + 1 end, A), x)
  end)
end)

describe('outside Torch7 mode', function()
  it("the methods are fused's again after uninstall", function()
    th.install()
    th.uninstall()
    local x = T(A)
    local y = x:add(T(B))
    close(A, x, 'x:add(y) leaves x')
    close(map(function(a, b) return a + b end, A, B), y)
    local e = x:exp()
    close(A, x, 'x:exp() leaves x')
    close(map(math.exp, A), e)
    local v = T({ 3, 1, 4 }):topk(1)
    close({ 4 }, v)
    assert.are.equal('fused.DoubleTensor', x:type())
    assert.has_error(function() return x:storage() end)
    assert.is_nil(rawget(_G, 'torch'))
  end)
end)
