-- Scans and sorts along a dim (1-based, negative from the end), of the input's shape:
-- t:cumsum(dim) and t:cumprod(dim) (of int64 and bool: int64, as PyTorch's), d_cumsum(grad_out,
-- dim) cumsum's gradient (a cumsum from the end); t:sort(dim,
-- descending) and t:topk(k, dim, largest, sorted), values and int64 indices counted from 1,
-- dim the last by default, as PyTorch's. sort is stable (equal values keep their order) and
-- puts NaN above every number; topk's results are always sorted. cumsum, cumprod and sort take
-- {out = t} ({out = {values, indices}} for sort) last. The CPU's only so far: on a CUDA tensor
-- they raise an error that says so.
local lib = require 'fused.lib'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local dt = require 'fused.dtype'
local out_ = require 'fused.ops.out'

local C, check, expect = lib.C, argcheck.c_status, argcheck.expect
local contiguous, finish = out_.contiguous, out_.finish
local BOOL, INT64 = dt.dtypes.bool, dt.dtypes.int64
local M = {}

-- run(out, t, dim) calls C, dim 0-based.
local function cumulative(fn, run)
  return function(t, dim, opts)
    expect(t, fn, 'input')
    t = t.scalar_type == BOOL and t:to('int64') or contiguous(t)
    dim = argcheck.check_dim(t, dim, fn)
    local out = out_.option(opts, fn)
    local dst = out_.target_like(fn, out, t)
    check(run(dst, t, dim - 1))
    return finish(out, dst)
  end
end
M.cumsum = cumulative('cumsum', function(out, t, dim) return C.fused_cumsum(out, t, dim, 0) end)
M.cumprod = cumulative('cumprod', C.fused_cumprod)
-- cumsum's gradient: grad_out summed from the last element along dim.
M.d_cumsum = cumulative('d_cumsum', function(out, t, dim) return C.fused_cumsum(out, t, dim, 1) end)

-- x when a boolean, dflt when nil.
local function expect_flag(x, dflt, fn, arg)
  if x == nil then return dflt end
  if type(x) ~= 'boolean' then
    blame(string.format("%s: argument '%s' expected a boolean, got %s", fn, arg,
                        argcheck.type_name(x)))
  end
  return x
end

-- values, indices of t sorted along dim (checked, 1-based); outs {values, indices} or nil. A
-- bool t sorts as int64 (false below true).
local function sort_into(fn, t, dim, descending, outs)
  local input = t.scalar_type == BOOL and t:to('int64') or contiguous(t)
  if outs ~= nil and (type(outs) ~= 'table' or argcheck.is_tensor(outs)) then
    blame(string.format("%s: option 'out' expected a list {values, indices}, got %s", fn,
                        argcheck.type_name(outs)))
  end
  outs = outs or {}
  local values_out = input.scalar_type == t.scalar_type and outs[1] or nil
  local v = out_.target(fn, values_out, t.ndim, t.sizes, input.scalar_type, t.device_type)
  local i = out_.target(fn, outs[2], t.ndim, t.sizes, INT64, t.device_type)
  check(C.fused_sort(v, i, input, dim - 1, descending and 1 or 0))
  local values, indices = finish(values_out, v), finish(outs[2], i)
  if t.scalar_type == BOOL then
    values = outs[1] and outs[1]:copy_(values) or values:to('bool')
  end
  return values, indices
end

function M.sort(t, dim, descending, opts)
  expect(t, 'sort', 'input')
  dim = argcheck.check_dim(t, dim == nil and -1 or dim, 'sort')
  descending = expect_flag(descending, false, 'sort', 'descending')
  return sort_into('sort', t, dim, descending, out_.option(opts, 'sort'))
end

-- The k largest (or smallest) along dim: sort, then the first k.
function M.topk(t, k, dim, largest, sorted)
  expect(t, 'topk', 'input')
  if t.device ~= 'cpu' then -- as sort's error would, naming topk
    blame(string.format("topk: not implemented for %s tensors yet; call :to('cpu') first",
                        t.device))
  end
  dim = argcheck.check_dim(t, dim == nil and -1 or dim, 'topk')
  local size = t:size(dim)
  if type(k) ~= 'number' or k ~= math.floor(k) or k < 0 or k > size then
    blame(string.format("topk: argument 'k' expected an integer in 0..%d (the size of dim %d), "
                        .. "got %s", size, dim, type(k) == 'number' and tostring(k)
                        or argcheck.type_name(k)))
  end
  largest = expect_flag(largest, true, 'topk', 'largest')
  expect_flag(sorted, true, 'topk', 'sorted')
  local values, indices = sort_into('topk', t, dim, largest)
  return values:narrow(dim, 1, k):contiguous(), indices:narrow(dim, 1, k):contiguous()
end

return M
