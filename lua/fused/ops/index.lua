-- Indexing by a bool mask or by int64 indices counted from 1, as PyTorch's: t:masked_select(mask)
-- (a 1-D copy of t's elements where mask is true, the two broadcast), t:masked_scatter_(mask,
-- source), t:index_put_(indices, values, accumulate) (indices a list of 1-D int64 tensors or Lua
-- lists), t:index_add_(dim, index, source). The loops are C's (c/ops/index.c), on the CPU: a
-- CUDA tensor is C's error ("not implemented on the cuda device yet").
local lib = require 'fused.lib'
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local factory = require 'fused.factory'
local dt = require 'fused.dtype'
local out_ = require 'fused.ops.out'
local broadcast = require 'fused.ops.broadcast'
local ffi = require 'ffi'

local C, check, expect = lib.C, argcheck.c_status, argcheck.expect
-- C's loops take contiguous memory: an op that writes t writes contiguous(t), t itself or a
-- copy of it, which finish copies back.
local contiguous, finish = out_.contiguous, out_.finish
local M = {}

local function expect_mask(mask, fn)
  argcheck.expect(mask, fn, 'mask')
  if mask.scalar_type ~= dt.dtypes.bool then
    blame(string.format("%s: argument 'mask' expected a bool tensor (t:gt(0), say), got %s", fn,
                        dt.dtype_names[mask.scalar_type]))
  end
  return mask
end

function M.masked_select(t, mask)
  expect(t, 'masked_select', 'input')
  expect_mask(mask, 'masked_select')
  local shape = broadcast.shape('masked_select', { 'input', 'mask' }, { t, mask })
  t, mask = contiguous(broadcast.expand(t, shape)), contiguous(broadcast.expand(mask, shape))
  local n = tensor.count_true(mask) -- 0 gives an empty tensor, as PyTorch
  local out = factory.empty({ n }, { dtype = t.dtype, device = t.device })
  check(C.fused_masked_select(out, t, mask))
  return out
end

-- t's elements where mask (broadcast to t's shape) is true take source's first ones, in order.
function M.masked_scatter_(t, mask, source)
  argcheck.expect_writable(t, 'masked_scatter_', 'self')
  expect_mask(mask, 'masked_scatter_')
  expect(source, 'masked_scatter_', 'source')
  local shape = broadcast.shape('masked_scatter_', { 'self', 'mask' }, { t, mask })
  broadcast.check_inplace('masked_scatter_', t, shape)
  mask, source = contiguous(broadcast.expand(mask, shape)), contiguous(source)
  local dst = contiguous(t)
  check(C.fused_masked_scatter(dst, mask, source))
  return finish(t, dst)
end

-- An int64 index on t's device, from an int64 tensor or a Lua list (arg names it in errors).
local function as_index(index, t, fn, arg)
  if type(index) == 'table' then
    return factory.tensor(argcheck.expect_index_list(index, fn, arg), { dtype = 'int64', device = t.device })
  end
  return contiguous(argcheck.expect_dtype(index, 'int64', fn, arg))
end

local indices_array = ffi.typeof('const fused_tensor *[?]')

-- t[indices[1][k], ..., indices[n][k]] = values[k] for every k (the dims after the n indexed
-- ones whole), or += with accumulate (repeated positions add up). values: a number, or a
-- tensor that broadcasts to [k, t's remaining sizes].
function M.index_put_(t, indices, values, accumulate)
  local fn = 'index_put_'
  argcheck.expect_writable(t, fn, 'self')
  local n = type(indices) == 'table' and argcheck.sequence_length(indices)
  if not n or n < 1 or n > t.ndim then
    blame(string.format("%s: argument 'indices' expected a list of 1 to %d index tensors, got %s", fn,
                        t.ndim, type(indices) == 'table' and argcheck.show_list(indices) or argcheck.type_name(indices)))
  end
  if accumulate ~= nil and type(accumulate) ~= 'boolean' then
    blame(string.format("%s: argument 'accumulate' expected a boolean, got %s", fn,
                        argcheck.type_name(accumulate)))
  end
  local list = indices_array(n)
  local keep = {} -- the index tensors, alive while C reads them through list
  for d = 1, n do
    keep[d] = as_index(indices[d], t, fn, 'indices[' .. d .. ']')
    list[d - 1] = keep[d]
  end
  local shape = { keep[1]:numel() }
  for d = n + 1, t.ndim do shape[#shape + 1] = t:size(d) end
  if type(values) == 'number' or type(values) == 'boolean' then
    argcheck.expect_scalar(values, t.scalar_type, fn, 'values')
    values = factory.full(shape, values, { dtype = t.dtype, device = t.device })
  else
    expect(values, fn, 'values')
    local fits = values.ndim <= #shape
    for back = 1, fits and values.ndim or 0 do
      local s = values:size(-back)
      fits = fits and (s == 1 or s == shape[#shape - back + 1])
    end
    if not fits then
      blame(string.format("%s: argument 'values' expected a shape that broadcasts to [%s] (the "
                          .. "indices' length, then t's sizes they leave), got [%s]", fn,
                          table.concat(shape, ', '), table.concat(values:shape(), ', ')))
    end
    values = contiguous(broadcast.expand(values, shape))
  end
  local dst = contiguous(t)
  check(C.fused_index_put(dst, list, n, values, accumulate and 1 or 0))
  return finish(t, dst)
end

-- t:index_add_(dim, index, source): t[..., index[k], ...] += source[..., k, ...] along dim.
function M.index_add_(t, dim, index, source)
  local fn = 'index_add_'
  argcheck.expect_writable(t, fn, 'self')
  dim = argcheck.check_dim(t, dim, fn)
  index = as_index(index, t, fn, 'index')
  source = contiguous(expect(source, fn, 'source'))
  local dst = contiguous(t)
  check(C.fused_index_add(dst, dim - 1, index, source))
  return finish(t, dst)
end

return M
