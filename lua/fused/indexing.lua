-- t[k] and t[k] = v, through the metatype's __index and __newindex (fused/tensor.lua):
--   t[i]                      the slice at i along dim 1, a view; for a 1-D tensor its element
--                             (as t:item() reads it); negative from the end (-1 the last).
--   t[{2, {1, 3}, {-1}, {}}]  Torch7's slices, one entry per dim from the first: an index
--                             selects (the dim goes), {first, last} a range (both included),
--                             {i} the range {i, i} (the dim stays), {} the whole dim; negative
--                             indices count from the end (-1 the last); the dims after the
--                             entries are whole. A view sharing t's storage; an index for
--                             every dim gives the element, as t[i][j] does.
--   t[mask]                   a bool mask of t's shape: a 1-D copy of the elements where it is
--                             true, in row-major order (as PyTorch's t[mask]).
-- Assignment through either: t[{{1, 2}, 3}] = 0 or = tensor (copied, as copy_), t[mask] = 0 or
-- = a 1-D tensor of as many elements as the mask has true.
local tensor = require 'fused.tensor'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local index_ops = require 'fused.ops.index'
local copy = require 'fused.ops.copy'

local M = {}

-- i counted from 1 along dim (of t's), negative from the end (-1 the last); level as error's,
-- seen from the caller of dim_index.
local function dim_index(t, dim, i, level)
  if t.ndim == 0 then -- as PyTorch: a 0-d tensor has no dim to index
    error("fused.Tensor: a 0-d tensor cannot be indexed; read its element with t:item()", level + 1)
  end
  local size = tonumber(t.sizes[dim - 1])
  if type(i) == 'number' and i ~= math.floor(i) and i == i and math.abs(i) ~= math.huge then
    error(string.format("fused.Tensor: index %s for dim %d is not an integer (indices are whole numbers, 1..%d)",
                        tostring(i), dim, size), level + 1)
  end
  if type(i) ~= 'number' or i ~= math.floor(i) or i == 0 or i > size or i < -size then
    local range = size == 0 and 'it has no index to take'
      or string.format('expected 1..%d, or -%d..-1 from the end', size, size)
    error(string.format("fused.Tensor: index %s is out of range for dim %d of size %d (%s)",
                        type(i) == 'number' and tostring(i) or argcheck.type_name(i), dim, size, range), level + 1)
  end
  return i < 0 and size + i + 1 or i
end

-- t[i]: the slice at i along dim 1, a view; for a 1-D tensor its element (as t:item() reads it).
local function index_get(t, i)
  i = dim_index(t, 1, i, 2)
  if t.ndim > 1 then return t:select(1, i) end
  if t.device_type ~= dt.devices.cpu or dt.through[t.scalar_type] then
    return t:narrow(1, i, 1):item()
  end
  return tensor.element(t, (i - 1) * t.strides[0])
end

-- lhs = v (lhs 't[i]', say, the slice of t as the user wrote it): a number (or boolean) fills
-- the slice, a tensor is copied into it (broadcast, as copy_). t must be writable as a whole:
-- a slice of an expanded t holds elements that others share (t[2] = 5 on ones(1):expand(4)
-- would write all four). level as error's, seen from the caller of assign.
local function assign(t, slice, v, lhs, level)
  local expr = lhs .. ' = v'
  argcheck.expect_writable(t, expr, 't')
  if type(v) == 'number' or type(v) == 'boolean' then
    copy.fill(slice, argcheck.expect_scalar(v, slice.scalar_type, expr, 'v'))
  elseif argcheck.is_tensor(v) then
    v = copy.broadcast_source(slice, v, expr, 'v', lhs .. "'s")
    copy.copy(slice, v.device_type ~= slice.device_type and v:contiguous() or v)
  else
    error(string.format("fused.Tensor: %s expected a number, a boolean or a tensor for v, got %s", expr,
                        argcheck.type_name(v)), level + 1)
  end
end

-- t[i] = v: the slice at i along dim 1 (the element of a 1-D tensor), as assign writes it.
local function index_set(t, i, v)
  i = dim_index(t, 1, i, 2)
  assign(t, t.ndim > 1 and t:select(1, i) or t:narrow(1, i, 1), v, 't[i]', 2)
end

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end

-- The view t[entries] (level as error's, seen from the caller of slice), and whether every dim
-- got an index: then it is the last dim's one-element view, and the last index the element's.
local function slice(t, entries, level)
  local n = argcheck.sequence_length(entries)
  if not n or n > t.ndim then
    error(string.format("fused.Tensor: t[{...}] expected a list of at most %d entries (one per dim), got %s",
                        t.ndim, argcheck.show_list(entries)), level + 1)
  end
  local v, d, dropped = t, 1, 0 -- d: the dim of v that entry k of t's dim k lands on
  for k = 1, n do
    local e = entries[k]
    if type(e) == 'number' then
      local i = dim_index(t, k, e, level + 1)
      if v.ndim == 1 then return v:narrow(1, i, 1), true end
      v, dropped = v:select(d, i), dropped + 1
    else
      local m = type(e) == 'table' and argcheck.sequence_length(e)
      if not m or m > 2 then
        error(string.format("fused.Tensor: t[{...}] expected an index, {first, last}, {i} or {} at "
                            .. "position %d, got %s", k,
                            type(e) == 'table' and argcheck.show_list(e) or argcheck.type_name(e)), level + 1)
      end
      if m > 0 then
        local first = dim_index(t, k, e[1], level + 1)
        local last = dim_index(t, k, e[m], level + 1)
        if last < first then
          error(string.format("fused.Tensor: t[{...}] range %s at position %d is empty (%d..%d of dim %d's "
                              .. "size %d); a range {first, last} needs first <= last", argcheck.show_list(e),
                              k, first, last, k, t:size(k)), level + 1)
        end
        v = v:narrow(d, first, last - first + 1)
      end
      d = d + 1
    end
  end
  return v, false
end

-- mask: a bool tensor of t's shape, or the error naming what came (level as slice's).
local function expect_mask(t, mask, lhs, level)
  if mask.scalar_type ~= dt.dtypes.bool then
    error(string.format("fused.Tensor: %s expected a bool mask (t:gt(0), say) of t's shape %s, got "
                        .. "dtype %s (for indices along a dim use t:index_select(dim, index))",
                        lhs, shape_text(t), mask.dtype), level + 1)
  end
  if shape_text(mask) ~= shape_text(t) then
    error(string.format("fused.Tensor: %s expected a bool mask of t's shape %s, got shape %s", lhs,
                        shape_text(t), shape_text(mask)), level + 1)
  end
  return mask
end

function M.get(t, k)
  if type(k) == 'number' then return index_get(t, k) end
  if argcheck.is_tensor(k) then
    return index_ops.masked_select(t, expect_mask(t, k, 't[mask]', 2))
  end
  local v, element = slice(t, k, 2)
  if element then return v[1] end
  return v
end

function M.set(t, k, value)
  if type(k) == 'number' then return index_set(t, k, value) end
  if not argcheck.is_tensor(k) then
    assign(t, (slice(t, k, 2)), value, 't[{...}]', 2) -- not a tail call: levels count set
    return
  end
  local mask = expect_mask(t, k, 't[mask]', 2)
  if type(value) == 'number' or type(value) == 'boolean' then
    argcheck.expect_writable(t, 't[mask] = v', 't')
    t:masked_fill_(mask, argcheck.expect_scalar(value, t.scalar_type, 't[mask] = v', 'v'))
    return
  end
  local count = tensor.count_true(mask)
  if not argcheck.is_tensor(value) or value.ndim ~= 1 or value:numel() ~= count then
    error(string.format("fused.Tensor: t[mask] = v expected for v a number, a boolean or a 1-D "
                        .. "tensor of %d elements (the mask's true ones), got %s", count,
                        argcheck.is_tensor(value) and 'shape ' .. shape_text(value) or argcheck.type_name(value)), 2)
  end
  argcheck.expect_writable(t, 't[mask] = v', 't')
  index_ops.masked_scatter_(t, mask, value)
end

tensor.indexing.get, tensor.indexing.set = M.get, M.set

return M
