-- The `lengths` of a ragged batch as the sequence engine takes them: a Lua list of B step
-- counts (sequence b runs steps 1..lengths[b]) or a 1-D int64 tensor of them (PyTorch's
-- pack_padded_sequence takes either), checked here so that the error names the user's
-- argument, then an int64_t[B]; nil stays nil (every sequence runs all T steps).
local ffi = require 'ffi'
local dt = require 'fused.dtype'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'

local M = {}

-- Errors are blamed on the user's line (fused/blame.lua) and name from, the argument whose
-- sizes give T and B (default 'xs').
function M.check(lengths, T, B, fn, from)
  from = from or 'xs'
  if lengths == nil then return nil end
  if argcheck.is_tensor(lengths) then
    if lengths.scalar_type ~= dt.dtypes.int64 or lengths.ndim ~= 1 then
      blame(string.format("%s: argument 'lengths' expected a list or a 1-D int64 tensor of %d step "
                          .. "counts, got a %d-D %s tensor", fn, B, lengths.ndim, lengths.dtype))
    end
    lengths = lengths:totable()
  elseif type(lengths) ~= 'table' then
    blame(string.format("%s: argument 'lengths' expected a list or a 1-D int64 tensor of %d step "
                        .. "counts, got %s", fn, B, type(lengths)))
  end
  if #lengths ~= B then
    blame(string.format("%s: argument 'lengths' expected %d step counts (B from '%s'), got %d", fn,
                        B, from, #lengths))
  end
  local a = ffi.new('int64_t[?]', B)
  for i = 1, B do
    local n = lengths[i]
    if type(n) ~= 'number' or n ~= math.floor(n) or n < 1 or n > T then
      blame(string.format("%s: argument 'lengths' expected integers 1 to %d (T from '%s'), got %s "
                          .. "at position %d", fn, T, from, tostring(n), i))
    end
    a[i - 1] = n
  end
  return a
end

-- check's int64_t[B] as a Lua list (a copy, as a caller's option takes it again).
function M.list(a, B)
  local list = {}
  for b = 1, B do list[b] = tonumber(a[b - 1]) end
  return list
end

-- xs (time-major) with the steps past each sequence's length zeroed, in module's buffer
-- 'xs_zero_padded' (xs itself where no sequence is short; a as check gives it): a padded row
-- still goes through the products (or a cell's step), and must add exactly zero to the
-- gradients whatever the caller left in it, NaN and inf included, as PyTorch's packed
-- sequences never read it.
function M.zero_padding(module, xs, a, T, B)
  local x = nil
  for b = 1, B do
    local n = tonumber(a[b - 1])
    if n < T then
      x = x or module:buffer_shaped('xs_zero_padded', xs:shape(), xs):copy_(xs)
      x:narrow(1, n + 1, T - n):select(2, b):zero_()
    end
  end
  return x or xs
end

return M
