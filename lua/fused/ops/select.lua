-- Selection: fused.where(cond, a, b) (cond a bool tensor; a, b tensors or numbers; all three
-- broadcast; two tensors of different dtypes promoted, as PyTorch's), t:masked_fill(mask, value) and masked_fill_ (value a number or a 0-d tensor), t:index_select(dim, index) and
-- t:gather(dim, index), the indices int64 tensors (or Lua lists) counted from 1; t:nonzero(),
-- the positions of t's nonzero elements (NaN is one) as the rows of an N x ndim int64 tensor,
-- counted from 1 (the CPU's only so far; no nonzero element gives 0 x ndim, as PyTorch).
-- {out = t} last.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local factory = require 'fused.factory'
local dt = require 'fused.dtype'
local out_ = require 'fused.ops.out'
local broadcast = require 'fused.ops.broadcast'
local blame = require 'fused.blame'

local C, check, expect = lib.C, argcheck.c_status, argcheck.expect
local contiguous, finish = out_.contiguous, out_.finish
local M = {}

-- A number operand of where as a one-element tensor like the other operand (expanded later).
local function operand(x, like, fn, arg)
  if type(x) ~= 'number' and type(x) ~= 'boolean' then return expect(x, fn, arg) end
  x = argcheck.expect_scalar(x, like.scalar_type, fn, arg)
  local t = factory.empty({ 1 }, { dtype = dt.dtype_names[like.scalar_type], device = dt.device_names[like.device_type] })
  return t:fill_(x)
end

-- names: the arguments' names in fn ({'condition', 'a', 'b'} for where).
local where_names = { 'condition', 'a', 'b' }
local masked_fill_names = { 'mask', 'value', 'self' }
local function where_into(fn, names, out, cond, a, b)
  expect(cond, fn, names[1])
  if cond.scalar_type ~= dt.dtypes.bool then
    blame(string.format("%s: argument '%s' expected a bool tensor (t:gt(0), say), got %s", fn,
                        names[1], dt.dtype_names[cond.scalar_type]))
  end
  if not argcheck.is_tensor(a) and not argcheck.is_tensor(b) then
    blame(string.format("%s: expected a tensor for '%s' or '%s', got %s and %s", fn, names[2],
                        names[3], argcheck.type_name(a), argcheck.type_name(b)))
  end
  a = operand(a, argcheck.is_tensor(a) and a or b, fn, names[2])
  b = operand(b, a, fn, names[3])
  a, b = dt.promoted(a, b)
  local shape = broadcast.shape(fn, names, { cond, a, b })
  if out ~= nil and (rawequal(out, a) or rawequal(out, b)) then broadcast.check_inplace(fn, out, shape) end
  cond, a, b = broadcast.expand(cond, shape), broadcast.expand(a, shape), broadcast.expand(b, shape)
  local dst = out_.target(fn, out, a.ndim, a.sizes, a.scalar_type, a.device_type)
  check(C.fused_where(dst, cond, a, b))
  return finish(out, dst)
end

function M.where(cond, a, b, opts)
  return where_into('where', where_names, out_.option(opts, 'where'), cond, a, b)
end

-- masked_fill's value: a number (or boolean), or a 0-d tensor holding one, as PyTorch's (a
-- tensor of elements to place is masked_scatter_'s, or where's).
local function fill_value(value, fn)
  if not argcheck.is_tensor(value) then return value end
  if value.ndim ~= 0 then
    blame(string.format("%s: argument 'value' expected a number or a 0-d tensor, got a %d-D tensor "
                        .. "(fused.where(mask, values, t) takes a tensor of values)", fn, value.ndim))
  end
  return value:item()
end

function M.masked_fill(t, mask, value, opts)
  expect(t, 'masked_fill', 'self')
  return where_into('masked_fill', masked_fill_names, out_.option(opts, 'masked_fill'), mask,
                    fill_value(value, 'masked_fill'), t)
end

function M.masked_fill_(t, mask, value)
  argcheck.expect_writable(t, 'masked_fill_', 'self')
  return where_into('masked_fill_', masked_fill_names, t, mask, fill_value(value, 'masked_fill_'), t)
end

-- An int64 index on t's device, from an int64 tensor or a Lua list.
local function as_index(index, t, fn)
  if type(index) == 'table' then
    return factory.tensor(argcheck.expect_index_list(index, fn, 'index'), { dtype = 'int64', device = dt.device_names[t.device_type] })
  end
  return contiguous(argcheck.expect_dtype(index, 'int64', fn, 'index'))
end

local sizes = out_.sizes()

function M.index_select(t, dim, index, opts)
  t = contiguous(expect(t, 'index_select', 'input'))
  dim = argcheck.check_dim(t, dim, 'index_select')
  index = as_index(index, t, 'index_select')
  if index.ndim ~= 1 then
    blame(string.format("index_select: argument 'index' expected 1 dim, got %d", index.ndim))
  end
  for d = 0, t.ndim - 1 do sizes[d] = t.sizes[d] end
  sizes[dim - 1] = index.sizes[0]
  local out = out_.option(opts, 'index_select')
  local dst = out_.target('index_select', out, t.ndim, sizes, t.scalar_type, t.device_type)
  check(C.fused_index_select(dst, t, dim - 1, index))
  return finish(out, dst)
end

-- The result has index's shape, which is t's except along dim.
function M.gather(t, dim, index, opts)
  t = contiguous(expect(t, 'gather', 'input'))
  dim = argcheck.check_dim(t, dim, 'gather')
  index = as_index(index, t, 'gather')
  local out = out_.option(opts, 'gather')
  local dst = out_.target('gather', out, index.ndim, index.sizes, t.scalar_type, t.device_type)
  check(C.fused_gather(dst, t, dim - 1, index))
  return finish(out, dst)
end

local count = ffi.new('int64_t[1]')
function M.nonzero(t, opts)
  t = contiguous(expect(t, 'nonzero', 'input'))
  check(C.fused_count_nonzero(count, t))
  sizes[0], sizes[1] = count[0], t.ndim
  local out = out_.option(opts, 'nonzero')
  local dst = out_.target('nonzero', out, 2, sizes, dt.dtypes.int64, t.device_type)
  check(C.fused_nonzero(dst, t))
  return finish(out, dst)
end

return M
