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
local blame = require 'fused.blame'

local C, check, expect = lib.C, argcheck.c_status, argcheck.expect
local contiguous, finish = out_.contiguous, out_.finish
local M = {}

local sizes = out_.sizes()

-- |t| by the op layer's abs (ops/init.lua wraps it), found when first called: the op layer
-- loads this file.
local function abs(t) return require('fused.ops').abs(t) end
local BOOL = dt.dtypes.bool
local function counted(t) return t.scalar_type == BOOL and t:to('int64') or contiguous(t) end

-- The reduced shape (dim of size 1) into sizes; dim checked, 1-based.
local function reduced(t, dim, fn)
  dim = argcheck.check_dim(t, dim, fn, 'dim')
  for d = 0, t.ndim - 1 do sizes[d] = t.sizes[d] end
  sizes[dim - 1] = 1
  return dim
end

-- opts.out, checked, for the reduction fn along dim; over all elements (no dim) the result is a
-- number, which no out receives.
local function out_option(opts, fn, dim)
  local out = out_.option(opts, fn)
  if dim == nil and out ~= nil then
    blame(string.format("%s: option 'out' needs a dim: over all elements %s gives a number", fn, fn))
  end
  return out
end

-- mean, var, std and norm of integers are an error, as PyTorch's (convert first).
local function expect_floating(t, fn)
  expect(t, fn, 'input')
  if not dt.is_floating[t.scalar_type] then
    blame(string.format("%s: argument 'input' expected a floating tensor, got %s (convert it with "
                        .. ":float() or :double() first)", fn, dt.dtype_names[t.scalar_type]))
  end
  return t
end

-- The sum of t (counted) along dim into out; fn names the reduction the user called.
local function sum_dim(fn, t, dim, out)
  dim = reduced(t, dim, fn)
  local dst = out_.target(fn, out, t.ndim, sizes, t.scalar_type, t.device_type)
  check(C.fused_sum_dim(dst, t, dim - 1))
  return finish(out, dst)
end
local function sum_all(t) return sum_dim('sum', t:view(-1), 1):item() end

function M.sum(t, dim, opts)
  t = counted(expect(t, 'sum', 'input'))
  local out = out_option(opts, 'sum', dim)
  if dim == nil then return sum_all(t) end
  return sum_dim('sum', t, dim, out)
end

function M.mean(t, dim, opts)
  expect_floating(t, 'mean')
  local out = out_option(opts, 'mean', dim)
  if dim == nil then return sum_all(contiguous(t)) / t:numel() end
  return sum_dim('mean', contiguous(t), dim, out):div_(t:size(dim))
end

function M.prod(t, dim, opts)
  t = counted(expect(t, 'prod', 'input'))
  local out = out_option(opts, 'prod', dim)
  if dim == nil then return M.prod(t:view(-1), 1):item() end
  dim = reduced(t, dim, 'prod')
  local dst = out_.target('prod', out, t.ndim, sizes, t.scalar_type, t.device_type)
  check(C.fused_prod_dim(dst, t, dim - 1))
  return finish(out, dst)
end

-- values, indices along dim; outs: {values, indices} or nil. C's checks would name max or min
-- for argmax, argmin and norm: theirs come first.
local function extremum(fn, c_fn, t, dim, outs)
  dim = reduced(t, dim, fn)
  if t.scalar_type == BOOL then
    blame(string.format("%s: argument 'input' expected a number dtype (float32, float64 or int64), got bool", fn))
  end
  if t.sizes[dim - 1] == 0 then
    blame(string.format("%s: argument 'input' expected a non-zero size in dim %d (the dim reduced), got 0: "
                        .. "the %s of no elements is undefined", fn, dim, fn))
  end
  if outs ~= nil and (type(outs) ~= 'table' or argcheck.is_tensor(outs)) then
    blame(string.format("%s: option 'out' expected a list {values, indices}, got %s", fn, argcheck.type_name(outs)))
  end
  outs = outs or {}
  local v = out_.target(fn, outs[1], t.ndim, sizes, t.scalar_type, t.device_type)
  local i = out_.target(fn, outs[2], t.ndim, sizes, dt.dtypes.int64, t.device_type)
  check(c_fn(v, i, t, dim - 1))
  return finish(outs[1], v), finish(outs[2], i)
end

-- The max (min, argmax, argmin) of all of an empty t is undefined, as in PyTorch.
local function expect_elements(t, fn)
  if t:numel() == 0 then
    blame(string.format("%s: argument 'input' expected a tensor with elements, got an empty one of "
                        .. "shape {%s}: the %s of no elements is undefined (give a dim whose size is not 0)",
                        fn, table.concat(t:shape(), ', '), fn))
  end
  return t
end

local function extremum_op(fn, c_fn)
  return function(t, dim, opts)
    t = contiguous(expect(t, fn, 'input'))
    local outs = out_option(opts, fn, dim)
    if dim == nil then return (extremum(fn, c_fn, expect_elements(t, fn):view(-1), 1)):item() end
    return extremum(fn, c_fn, t, dim, outs)
  end
end
M.max = extremum_op('max', C.fused_max_dim)
M.min = extremum_op('min', C.fused_min_dim)

local function arg_op(fn, c_fn)
  return function(t, dim, opts)
    t = contiguous(expect(t, fn, 'input'))
    local o = out_option(opts, fn, dim)
    if dim == nil then return select(2, extremum(fn, c_fn, expect_elements(t, fn):view(-1), 1)):item() end
    return select(2, extremum(fn, c_fn, t, dim, o and { nil, o }))
  end
end
M.argmax = arg_op('argmax', C.fused_max_dim)
M.argmin = arg_op('argmin', C.fused_min_dim)

-- Unbiased (n - 1): NaN for one element or none, as PyTorch. fn: var or std.
local function variance(fn, t, dim, out)
  if dim == nil and t:numel() == 0 then return 0 / 0 end
  if dim == nil then
    local d = t - M.mean(t)
    return sum_all(d:mul_(d)) / (t:numel() - 1)
  end
  dim = argcheck.check_dim(t, dim, fn)
  local d = t - M.mean(t, dim)
  return sum_dim(fn, d:mul_(d), dim, out):div_(t:size(dim) - 1)
end

function M.var(t, dim, opts)
  expect_floating(t, 'var')
  return variance('var', t, dim, out_option(opts, 'var', dim))
end

function M.std(t, dim, opts)
  expect_floating(t, 'std')
  local out = out_option(opts, 'std', dim)
  if dim == nil then return math.sqrt(variance('std', t)) end
  return variance('std', t, dim, out):sqrt_()
end

-- The p-norm (default 2; math.huge for the max of |t|).
function M.norm(t, p, dim, opts)
  expect_floating(t, 'norm')
  p = argcheck.expect_number(p == nil and 2 or p, 'norm', 'p')
  if not (p > 0) then blame("norm: argument 'p' expected a positive number, got " .. tostring(p)) end
  local out = out_option(opts, 'norm', dim)
  if dim == nil then
    if p == math.huge then return t:numel() == 0 and 0 or M.max(abs(t)) end
    if p == 2 then return math.sqrt(M.sum_squares(contiguous(t))) end
    return M.sum(abs(t):pow_(p)) ^ (1 / p)
  end
  if p == math.huge then return (extremum('norm', C.fused_max_dim, abs(t), dim, { out })) end
  if p == 2 then return sum_dim('norm', t * t, dim, out):sqrt_() end
  return sum_dim('norm', abs(t):pow_(p), dim, out):pow_(1 / p)
end

-- grad summed down to shape (a list or numbers): the gradient of a tensor of that shape that was
-- broadcast to grad's (NumPy's rules: leading dims and dims of size 1 are summed).
function M.sum_to_size(grad, ...)
  expect(grad, 'sum_to_size', 'grad')
  local shape, extra = argcheck.shape_args('sum_to_size', ...)
  if extra ~= nil then
    blame("sum_to_size: takes (grad, shape), got an extra argument after the shape: " .. argcheck.shown(extra))
  end
  argcheck.parse_shape(shape, 'sum_to_size')
  local lead = grad.ndim - #shape
  local fits = lead >= 0
  for d = 1, #shape do
    local size = fits and grad:size(d + lead)
    fits = fits and (shape[d] == size or shape[d] == 1)
  end
  if not fits then
    blame(string.format("sum_to_size: shape {%s} is not one that broadcasts to grad's {%s}",
                        table.concat(shape, ', '), table.concat(grad:shape(), ', ')))
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
