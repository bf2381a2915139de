-- The `out` convention of every op that makes a tensor, as PyTorch's out=: a trailing options
-- table, fused.add(a, b, {out = t}) or fused.matmul(a, b, {out = t}). The op writes into t and
-- returns it. t must have the result's dtype and device; a t of another shape is resized (a new
-- storage, as PyTorch's resize of an out) unless it is a view, which would part from its base:
-- then the op raises, naming 'out', as it does for a t whose elements overlap in memory (an
-- expanded view: clone() it first). Without out the op allocates its result. t changes only
-- once the op has succeeded: an op that fails leaves it as it was (target and finish).
local ffi = require 'ffi'
local lib = require 'fused.lib'
local options = require 'fused.options'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local dt = require 'fused.dtype'
local blame = require 'fused.blame'

local C = lib.C
local M = {}

local function shape_text(ndim, sizes)
  local s = {}
  for d = 1, ndim do s[d] = tostring(tonumber(sizes[d - 1])) end
  return '[' .. table.concat(s, ', ') .. ']'
end

-- opts.out, for an op whose only option is out; opts is checked.
function M.option(opts, fn)
  if opts == nil then return nil end
  return options.check(opts, fn, { 'out' }).out
end

-- out takes all of fresh (a new tensor): its storage, shape and strides; the storage it had
-- goes with its last tensor.
local function adopt(out, fresh)
  C.fused_tensor_release(out)
  argcheck.c_status(C.fused_tensor_view(out, fresh, fresh.ndim, fresh.sizes, fresh.strides, 0))
  return out
end

-- Whether out (the op fn's out) takes a result of ndim sizes as it is: true when it has that
-- shape, false when it must be resized; an error naming 'out' when it cannot take the result.
local function fits(fn, out, ndim, sizes, dtype, device)
  argcheck.expect_writable(out, fn, 'out')
  if out.scalar_type ~= dtype or out.device_type ~= device then
    blame(string.format("%s: argument 'out' expected %s on %s (the result's), got %s on %s", fn,
                        dt.dtype_names[dtype], dt.device_names[device],
                        dt.dtype_names[out.scalar_type], dt.device_names[out.device_type]))
  end
  local same = out.ndim == ndim
  for d = 0, ndim - 1 do same = same and out.sizes[d] == sizes[d] end
  if same then return true end
  if tensor.is_view(out) then
    blame(string.format("%s: argument 'out' expected shape %s (the result's), got %s (a view is "
                        .. "not resized)", fn, shape_text(ndim, sizes), shape_text(out.ndim, out.sizes)))
  end
  return false
end

-- The tensor an op with a result of ndim sizes (an int64_t array) writes: a new one, or out,
-- resized at once when its shape differs (its new storage allocated before it lets go of the
-- old). For the nn functions, which write their outs themselves.
function M.result(fn, out, ndim, sizes, dtype, device)
  if out == nil then return tensor.new(ndim, sizes, dtype, device) end
  if fits(fn, out, ndim, sizes, dtype, device) then return out end
  return adopt(out, tensor.new(ndim, sizes, dtype, device))
end

-- As result, for a result of t's shape, dtype and device.
function M.like(fn, out, t)
  return M.result(fn, out, t.ndim, t.sizes, t.scalar_type, t.device_type)
end

-- Where a kernel that needs contiguous memory writes: out, or a temporary that finish copies
-- back into a strided out (an in-place op on a view, say).
function M.dense(out)
  if C.fused_tensor_is_contiguous(out) == 1 then return out end
  return tensor.empty_like(out)
end

-- Where an op's kernel writes a result of ndim sizes: out itself where it is contiguous and of
-- that shape, else a new tensor that finish(out, dst) copies into out (a strided out) or gives
-- to it (an out of another shape: resized, as PyTorch resizes an out). So out changes only
-- once the op has succeeded: an op that fails leaves it as it was.
function M.target(fn, out, ndim, sizes, dtype, device)
  if out == nil or not fits(fn, out, ndim, sizes, dtype, device) then
    return tensor.new(ndim, sizes, dtype, device)
  end
  return M.dense(out)
end

-- As target, for a result of t's shape, dtype and device.
function M.target_like(fn, out, t)
  return M.target(fn, out, t.ndim, t.sizes, t.scalar_type, t.device_type)
end

-- The op's result: dst (what its kernel wrote, from target or dense) put into out, if any.
function M.finish(out, dst)
  if out == nil or rawequal(out, dst) then return dst end
  local same = out.ndim == dst.ndim
  for d = 0, dst.ndim - 1 do same = same and out.sizes[d] == dst.sizes[d] end
  if not same then return adopt(out, dst) end
  argcheck.c_status(C.fused_copy(out, dst))
  return out
end

-- t, or a contiguous copy of it.
M.contiguous = require('fused.ops.copy').contiguous

M.sizes = ffi.typeof('int64_t[8]')

return M
