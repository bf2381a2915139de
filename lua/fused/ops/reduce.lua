-- Reductions. With a dim, t:sum(dim) (and prod, mean, var, std, norm, max, min, argmax,
-- argmin) keeps dim with size 1, as Torch7 does, and takes {out = t} as every op
-- (ops/out.lua); max and min give values and int64 indices counted from 1 ({out = {values,
-- indices}}). Without one, the reduction of all elements is a number (argmax's a flat index
-- from 1). t:sum_squares() is a number accumulated in float64, of a contiguous t only
-- (clip_grad_norm's gradients, which it then scales in place). var and std are unbiased.
-- sum and prod of int64 are int64; of bool they count in int64, as PyTorch's.
local ffi = require 'ffi'
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local out_ = require 'fused.ops.out'
local dt = require 'fused.dtype'

local C, check, expect = lib.C, lib.check, argcheck.expect
local contiguous, dense, finish = out_.contiguous, out_.dense, out_.finish
local M = {}

local sizes = out_.sizes()
local BOOL = dt.dtypes.bool
local function counted(t) return t.scalar_type == BOOL and t:to('int64') or contiguous(t) end

function M.sum(t, dim, opts)
  t = counted(expect(t, 'sum', 'input'))
  if dim == nil then return M.sum(t:view(-1), 1):item() end
  dim = argcheck.check_dim(t, dim, 'sum')
  for d = 0, t.ndim - 1 do sizes[d] = t.sizes[d] end
  sizes[dim - 1] = 1
  local out = out_.result('sum', out_.option(opts, 'sum'), t.ndim, sizes, t.scalar_type, t.device_type)
  local dst = dense(out)
  check(C.fused_sum_dim(dst, t, dim - 1))
  return finish(out, dst)
end

function M.mean(t, dim, opts)
  expect(t, 'mean', 'input')
  if dim == nil then return M.sum(t) / t:numel() end
  dim = argcheck.check_dim(t, dim, 'mean')
  return M.sum(t, dim, opts):div_(t:size(dim))
end

-- The reduced shape (dim of size 1) into sizes; dim checked, 1-based.
local function reduced(t, dim, fn)
  dim = argcheck.check_dim(t, dim, fn, 'dim')
  for d = 0, t.ndim - 1 do sizes[d] = t.sizes[d] end
  sizes[dim - 1] = 1
  return dim
end

function M.prod(t, dim, opts)
  t = counted(expect(t, 'prod', 'input'))
  if dim == nil then return M.prod(t:view(-1), 1):item() end
  dim = reduced(t, dim, 'prod')
  local out = out_.result('prod', out_.option(opts, 'prod'), t.ndim, sizes, t.scalar_type, t.device_type)
  local dst = dense(out)
  check(C.fused_prod_dim(dst, t, dim - 1))
  return finish(out, dst)
end

-- values, indices along dim; outs: {values, indices} or nil.
local function extremum(fn, c_fn, t, dim, outs)
  dim = reduced(t, dim, fn)
  if outs ~= nil and (type(outs) ~= 'table' or argcheck.is_tensor(outs)) then
    error(string.format("%s: option 'out' expected a list {values, indices}, got %s", fn, argcheck.type_name(outs)), 4)
  end
  outs = outs or {}
  local values = out_.result(fn, outs[1], t.ndim, sizes, t.scalar_type, t.device_type)
  local indices = out_.result(fn, outs[2], t.ndim, sizes, dt.dtypes.int64, t.device_type)
  local v, i = dense(values), dense(indices)
  check(c_fn(v, i, t, dim - 1))
  return finish(values, v), finish(indices, i)
end

-- The max (min, argmax, argmin) of all of an empty t is undefined, as in PyTorch.
local function expect_elements(t, fn)
  if t:numel() == 0 then
    error(string.format("%s: argument 'input' expected a tensor with elements, got an empty one of "
                        .. "shape {%s}: the %s of no elements is undefined (give a dim whose size is not 0)",
                        fn, table.concat(t:shape(), ', '), fn), 3)
  end
  return t
end

local function extremum_op(fn, c_fn)
  return function(t, dim, opts)
    t = contiguous(expect(t, fn, 'input'))
    if dim == nil then return (extremum(fn, c_fn, expect_elements(t, fn):view(-1), 1)):item() end
    return extremum(fn, c_fn, t, dim, out_.option(opts, fn))
  end
end
M.max = extremum_op('max', C.fused_max_dim)
M.min = extremum_op('min', C.fused_min_dim)

local function arg_op(fn, c_fn)
  return function(t, dim, opts)
    t = contiguous(expect(t, fn, 'input'))
    if dim == nil then return select(2, extremum(fn, c_fn, expect_elements(t, fn):view(-1), 1)):item() end
    local o = out_.option(opts, fn)
    return select(2, extremum(fn, c_fn, t, dim, o and { nil, o }))
  end
end
M.argmax = arg_op('argmax', C.fused_max_dim)
M.argmin = arg_op('argmin', C.fused_min_dim)

-- Unbiased (n - 1): NaN for one element or none, as PyTorch.
function M.var(t, dim, opts)
  expect(t, 'var', 'input')
  if dim == nil and t:numel() == 0 then return 0 / 0 end
  if dim == nil then
    local d = t - M.mean(t)
    return M.sum(d:mul_(d)) / (t:numel() - 1)
  end
  dim = argcheck.check_dim(t, dim, 'var')
  local d = t - M.mean(t, dim)
  return M.sum(d:mul_(d), dim, opts):div_(t:size(dim) - 1)
end

function M.std(t, dim, opts)
  expect(t, 'std', 'input')
  if dim == nil then return math.sqrt(M.var(t)) end
  argcheck.check_dim(t, dim, 'std')
  return M.var(t, dim, opts):sqrt_()
end

-- The p-norm (default 2; math.huge for the max of |t|).
function M.norm(t, p, dim, opts)
  expect(t, 'norm', 'input')
  p = argcheck.expect_number(p == nil and 2 or p, 'norm', 'p')
  if p <= 0 then error("norm: argument 'p' expected a positive number, got " .. tostring(p), 2) end
  if p == math.huge then return M.max(t:abs(), dim, opts) end
  if dim == nil then
    if p == 2 then return math.sqrt(M.sum_squares(contiguous(t))) end
    return M.sum(t:abs():pow_(p)) ^ (1 / p)
  end
  if p == 2 then return M.sum(t * t, dim, opts):sqrt_() end
  return M.sum(t:abs():pow_(p), dim, opts):pow_(1 / p)
end

-- grad summed down to shape (a list or numbers): the gradient of a tensor of that shape that was
-- broadcast to grad's (NumPy's rules: leading dims and dims of size 1 are summed).
function M.sum_to_size(grad, ...)
  expect(grad, 'sum_to_size', 'grad')
  local shape = argcheck.shape_args('sum_to_size', ...)
  if type(shape) ~= 'table' then
    error("sum_to_size: argument 'shape' expected a list of sizes, got " .. argcheck.type_name(shape), 2)
  end
  local lead = grad.ndim - #shape
  local fits = lead >= 0
  for d = 1, #shape do
    local size = fits and grad:size(d + lead)
    fits = fits and (shape[d] == size or shape[d] == 1)
  end
  if not fits then
    error(string.format("sum_to_size: shape {%s} is not one that broadcasts to grad's {%s}",
                        table.concat(shape, ', '), table.concat(grad:shape(), ', ')), 2)
  end
  local r = grad
  for d = 1, grad.ndim do
    if r:size(d) ~= 1 and (d <= lead or shape[d - lead] == 1) then r = M.sum(r, d) end
  end
  return rawequal(r, grad) and r or r:view(shape)
end

local sum = ffi.new('double[1]')
function M.sum_squares(t)
  check(C.fused_sum_squares(sum, expect(t, 'sum_squares', 'input')))
  return sum[0]
end

return M
