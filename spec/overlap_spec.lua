-- Writes into a tensor whose elements overlap in memory (an expanded view, stride 0 over a
-- size > 1) are refused, as PyTorch refuses them: zeros(1):expand(3):add_({1, 2, 3}) would give
-- 3 3 3 or 1 2 3 by the order of the writes. Every op that writes names itself, the argument
-- and the remedy (clone() first), on every device, and writes nothing. Reading an expanded view
-- (broadcasting) and writing views that do not overlap (transposed, narrowed) stay allowed.
local ffi = require 'ffi'
local helper = require 'spec.helper'
local fused = helper.fused
local err = helper.assert_error

-- Each case gets a device's options and returns the op's name, the argument named in the error,
-- the expanded tensor e written through and a function doing the write. e views a single
-- element, which must still be 0 after the refused write.
local function cases(o)
  local function src() return fused.tensor({ 1, 2, 3 }, o) end
  local function e1() return fused.zeros({ 1 }, o):expand(3) end
  local function e2() return fused.zeros({ 1, 1 }, o):expand(2, 2) end
  local list = {}
  local function case(fn, arg, e, write) list[#list + 1] = { fn, arg, e, write } end
  -- in place, binary and unary
  for _, name in ipairs({ 'add_', 'sub_', 'mul_', 'div_', 'pow_', 'maximum_', 'minimum_' }) do
    case(name, 'self', e1(), function(e) e[name](e, src()) end)
  end
  case('add_', 'self', e1(), function(e) e:add_(1) end)
  for _, name in ipairs({ 'neg_', 'exp_', 'tanh_', 'sigmoid_', 'relu_', 'abs_', 'sqrt_', 'elu_' }) do
    case(name, 'self', e1(), function(e) e[name](e) end)
  end
  case('clamp_', 'self', e1(), function(e) e:clamp_(0, 1) end)
  case('addmm_', 'self', e2(), function(e) e:addmm_(fused.ones({ 2, 2 }, o), fused.ones({ 2, 2 }, o)) end)
  case('masked_fill_', 'self', e1(), function(e) e:masked_fill_(src():gt(1), 5) end)
  -- copies and fills
  case('copy_', 'self', e1(), function(e) e:copy_(src()) end)
  case('fill_', 'self', e1(), function(e) e:fill_(2) end)
  case('zero_', 'self', e1(), function(e) e:zero_() end)
  case('uniform_', 'self', e1(), function(e) e:uniform_() end)
  case('normal_', 'self', e1(), function(e) e:normal_() end)
  -- t as a whole: a slice of it holds elements the others share (t[2] = 5 on a 1-D expanded
  -- view wrote all of them)
  case('t[i] = v', 't', e2(), function(e) e[1] = 5 end)
  case('t[i] = v', 't', e2(), function(e) e[2] = fused.tensor({ 1, 2 }, o) end)
  case('t[i] = v', 't', e1(), function(e) e[2] = 5 end)
  case('t[i] = v', 't', e1(), function(e) e[2] = fused.tensor({ 7 }, o) end)
  case('t[{...}] = v', 't', e1(), function(e) e[{ { 2, 3 } }] = 5 end)
  case('t[{...}] = v', 't', e2(), function(e) e[{ 2, 1 }] = 5 end)
  case('t[mask] = v', 't', e1(), function(e) e[src():gt(1)] = 5 end)
  -- out=
  local a = fused.ones({ 2, 2 }, o)
  case('add', 'out', e1(), function(e) fused.add(src(), src(), { out = e }) end)
  case('tanh', 'out', e1(), function(e) fused.tanh(src(), { out = e }) end)
  case('matmul', 'out', e2(), function(e) fused.matmul(a, a, { out = e }) end)
  case('where', 'out', e1(), function(e) fused.where(src():gt(1), src(), 0, { out = e }) end)
  case('sum', 'out', fused.zeros({ 1, 1 }, o):expand(2, 1), function(e) fused.sum(a, 2, { out = e }) end)
  case('cat', 'out', e1(), function(e) fused.cat({ src():narrow(1, 1, 2), src():narrow(1, 1, 1) }, 1, { out = e }) end)
  case('index_select', 'out', e1(), function(e) fused.index_select(src(), 1, { 3, 2, 1 }, { out = e }) end)
  -- an optimizer's parameter
  case('sgd_step', 'param', e1(), function(e) fused.functional.sgd_step(e, src(), nil, 0.1, 0, 0, 0, false, true) end)
  return list
end

local function refuses_every_write(o)
  for _, c in ipairs(cases(o)) do
    local fn, arg, e, write = c[1], c[2], c[3], c[4]
    err(function() write(e) end, fn .. ": argument '" .. arg .. "' expected a tensor whose elements do not overlap",
        'clone() it before writing')
    assert.are.equal(0, e:contiguous():view(-1):totable()[1], fn .. ' wrote through the expanded view')
  end
end

describe('a write into an expanded view', function()
  it('is refused by every op that writes, naming it and the argument, on the cpu', function()
    refuses_every_write({ dtype = 'float64' })
  end)

  helper.gpu_it('is refused by every op that writes on cuda', function()
    refuses_every_write({ dtype = 'float32', device = 'cuda' })
  end)

  it('gives PyTorch\'s remedy, with the sizes and strides', function()
    err(function() fused.zeros(1):expand(3):add_(fused.tensor({ 1, 2, 3 })) end,
        "add_: argument 'self' expected a tensor whose elements do not overlap in memory, got sizes [3] "
        .. 'with strides [0]', 'clone() it before writing')
    local c = fused.zeros(1):expand(3):clone():add_(fused.tensor({ 1, 2, 3 }))
    assert.are.same({ 1, 2, 3 }, c:totable())
  end)

  it('is refused by the C API for every output, before anything is written', function()
    local C = fused.C
    local e = fused.zeros({ 1 }):expand(3)
    assert.are.equal(-1, C.fused_fill(e, 1))
    assert.truthy(ffi.string(C.fused_last_error()):find("fill: argument 't' expected a tensor whose", 1, true))
    assert.are.equal(-1, C.fused_copy(e, fused.tensor({ 1, 2, 3 })))
    assert.truthy(ffi.string(C.fused_last_error()):find("copy: argument 'dst' expected a tensor whose", 1, true))
    assert.are.equal(0, e:totable()[1])
  end)
end)

describe('views that do not overlap', function()
  local F64 = { dtype = 'float64' }

  it('are written: transposed, narrowed, selected', function()
    local m = fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, F64)
    m:t():add_(fused.tensor({ { 10, 40 }, { 20, 50 }, { 30, 60 } }, F64))
    assert.are.same({ { 11, 22, 33 }, { 44, 55, 66 } }, m:totable())
    m:narrow(2, 2, 2):fill_(0)
    assert.are.same({ { 11, 0, 0 }, { 44, 0, 0 } }, m:totable())
    m:select(2, 1):copy_(fused.tensor({ 7, 8 }, F64))
    m[2] = 9
    assert.are.same({ { 7, 0, 0 }, { 9, 9, 9 } }, m:totable())
    fused.mul(m:t(), 2, { out = m:t() })
    assert.are.same({ { 14, 0, 0 }, { 18, 18, 18 } }, m:totable())
  end)

  it('are written when strided by hand (fused_tensor_view), interleaved or of size 1 over stride 0', function()
    local base = fused.zeros({ 6 }, F64)
    local sizes, strides = ffi.new('int64_t[2]', { 2, 3 }), ffi.new('int64_t[2]', { 1, 2 })
    local v = ffi.new('fused_tensor')
    assert.are.equal(0, fused.C.fused_tensor_view(v, base, 2, sizes, strides, 0))
    v:copy_(fused.tensor({ { 1, 2, 3 }, { 4, 5, 6 } }, F64)) -- element (i, j) at i + 2j
    assert.are.same({ 1, 4, 2, 5, 3, 6 }, base:totable())
    local one = fused.zeros({ 1, 3 }, F64):expand(1, 3) -- a size-1 dim is never stepped along
    one:add_(1)
    assert.are.same({ { 1, 1, 1 } }, one:totable())
    strides[0], strides[1] = 1, 1 -- (1, 0) and (0, 1) land on one element
    local w = ffi.new('fused_tensor')
    assert.are.equal(0, fused.C.fused_tensor_view(w, base, 2, sizes, strides, 0))
    err(function() w:fill_(0) end, "fill_: argument 'self' expected a tensor whose elements do not overlap")
  end)

  it('and expanded views are read as before (broadcasting)', function()
    local e = fused.tensor({ 2 }, F64):expand(3)
    assert.are.same({ 3, 4, 5 }, fused.add(e, fused.tensor({ 1, 2, 3 }, F64)):totable())
    local d = fused.zeros({ 3 }, F64):copy_(e)
    assert.are.same({ 2, 2, 2 }, d:totable())
    assert.are.same({ 2, 2, 2 }, e:clone():totable())
  end)
end)
