-- NumPy's broadcasting, for every elementwise op of two or more tensors: shapes align at their
-- last dims, and a size 1 or a missing dim repeats to the other's size. An operand is broadcast
-- by a stride-0 view (t:expand), which C's elementwise kernels walk as any strided tensor.
local blame = require 'fused.blame'
local argcheck = require 'fused.check'

local M = {}

-- An operand of a binary op: raises "fn: argument 'arg' expected a tensor or a number, got
-- <type>" unless x is a tensor.
function M.expect_operand(x, fn, arg)
  if not argcheck.is_tensor(x) then
    blame(string.format("%s: argument '%s' expected a tensor or a number, got %s", fn, arg,
                        argcheck.type_name(x)))
  end
  return x
end

function M.same_shape(a, b)
  if a.ndim ~= b.ndim then return false end
  for d = 0, a.ndim - 1 do
    if a.sizes[d] ~= b.sizes[d] then return false end
  end
  return true
end

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end

-- The broadcast shape (a list) of the tensors, named by names ({'a', 'b'}); an error naming fn
-- and both operands when two sizes differ and neither is 1.
function M.shape(fn, names, tensors)
  local ndim = 0
  for _, t in ipairs(tensors) do ndim = math.max(ndim, t.ndim) end
  local shape = {}
  for back = 1, ndim do -- dims counted from the last
    local size, from = 1, nil
    for k, t in ipairs(tensors) do
      local s = back <= t.ndim and tonumber(t.sizes[t.ndim - back]) or 1
      if s ~= 1 then
        if size ~= 1 and s ~= size then
          blame(string.format("%s: argument '%s' of shape %s does not broadcast with '%s' of shape %s "
                              .. "(sizes %d and %d at dim %d from the end)", fn, names[k], shape_text(t),
                              names[from], shape_text(tensors[from]), s, size, back))
        end
        size, from = s, k
      end
    end
    shape[ndim - back + 1] = size
  end
  return shape
end

-- t as a view of shape (t itself when it has it).
function M.expand(t, shape)
  local same = t.ndim == #shape
  for d = 1, #shape do same = same and t.sizes[d - 1] == shape[d] end
  return same and t or t:expand(shape)
end

-- An out that is one of the inputs (an in-place op) keeps its shape: the broadcast shape must be
-- its own.
function M.check_inplace(fn, out, shape)
  if out == nil then return end
  local same = out.ndim == #shape
  for d = 1, #shape do same = same and out.sizes[d - 1] == shape[d] end
  if not same then
    blame(string.format("%s: the result's shape [%s] differs from %s's [%s], which an in-place op keeps",
                        fn, table.concat(shape, ', '), "'self'", table.concat(out:shape(), ', ')))
  end
end

-- A binary op's operands: two tensors of one shape as they are (any strides), else each
-- broadcast to the common shape. An out that is an operand keeps its shape. names: what the
-- user calls a and b ({'a', 'b'} unless given).
function M.operands(fn, out, a, b, names)
  if M.same_shape(a, b) then return a, b end
  local shape = M.shape(fn, names or { 'a', 'b' }, { a, b })
  if rawequal(out, a) or rawequal(out, b) then M.check_inplace(fn, out, shape) end
  return M.expand(a, shape), M.expand(b, shape)
end

return M
