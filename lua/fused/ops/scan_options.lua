-- The options of the linear scans (fused.scan, fused.linear_scan, their backwards, nn.Scan):
-- lengths, resets, reverse, checked with the caller's name in every error.
local ffi = require 'ffi'
local argcheck = require 'fused.check'
local blame = require 'fused.blame'
local dt = require 'fused.dtype'
local options = require 'fused.options'
local lengths_ = require 'fused.functional.lengths'
local out_ = require 'fused.ops.out'

local contiguous = out_.contiguous
local BOOL = dt.dtypes.bool
local OPTIONS = { 'lengths', 'resets', 'reverse' }
local M = {}

local function shape_text(t) return '[' .. table.concat(t:shape(), ', ') .. ']' end

-- Refuses a reset past a length (lengths int64_t[B]) in the contiguous T x B resets: the
-- engine would ignore it, so the two disagree. row names a batch row in the error.
function M.resets_within(resets, lengths, T, B, fn, row)
  local host = resets.device == 'cpu' and resets or resets:to('cpu')
  local at = ffi.cast('const bool *', host.data)
  for b = 0, B - 1 do
    for t = tonumber(lengths[b]), T - 1 do
      if at[t * B + b] then
        blame(string.format("%s: option 'resets' expected no reset past a %s's length, got one at "
                            .. 'step %d of %s %d, whose length is %d', fn, row, t + 1, row, b + 1,
                            tonumber(lengths[b])))
      end
    end
  end
end

-- Raises unless resets (the option a caller fn was given) is a bool tensor of shape want (its
-- dims named by layout) on device; any other value, a table of flags too, gets the same error.
function M.expect_resets(resets, fn, want, layout, device)
  local is_tensor = argcheck.is_tensor(resets)
  if is_tensor and resets.scalar_type == BOOL and resets.ndim == 2 and resets:size(1) == want[1]
      and resets:size(2) == want[2] and resets.device == device then
    return
  end
  blame(string.format("%s: option 'resets' expected a bool tensor of shape [%d, %d] (%s) on %s "
                      .. '(a 0/1 tensor of another dtype: resets:ne(0)), got %s', fn, want[1],
                      want[2], layout, device, is_tensor and string.format(
                        '%s %s tensor of shape %s on %s', resets.dtype:match('^[aeiou]') and 'an'
                        or 'a', resets.dtype, shape_text(resets), resets.device)
                      or argcheck.type_name(resets)))
end

-- The options as C takes them: lengths (int64_t[B] or nil), resets (a contiguous bool tensor or
-- nil), reverse (0 or 1), checked against T steps of B rows of ref (the argument ref_arg). A
-- reset past a row's length would be ignored: it is an error instead, since it says the two
-- disagree.
function M.check(opts, fn, ref, ref_arg, T, B, rows_given)
  local o = options.check(opts, fn, OPTIONS)
  if (o.lengths ~= nil or o.resets ~= nil) and not rows_given then
    blame(string.format("%s: options 'lengths' and 'resets' expected a (T, B, ...) layout, got "
                        .. "a 1-D %s", fn, shape_text(ref)))
  end
  local lengths = lengths_.check(o.lengths, T, B, fn, ref_arg)
  local resets = o.resets
  if resets ~= nil then
    M.expect_resets(resets, fn, { T, B }, 'T, B', ref.device)
    resets = contiguous(resets)
    if lengths then M.resets_within(resets, lengths, T, B, fn, 'row') end
  end
  if o.reverse ~= nil and type(o.reverse) ~= 'boolean' then
    blame(string.format("%s: option 'reverse' expected a boolean, got %s", fn,
                        argcheck.type_name(o.reverse)))
  end
  return lengths, resets, o.reverse and 1 or 0
end

-- The engine's sizes for scan's a: T, B (a's second dim, 1 for a 1-D a), D (the rest).
function M.rows_of(a)
  local T = a:size(1)
  local B = a.ndim >= 2 and a:size(2) or 1
  local D = 1
  for d = 3, a.ndim do D = D * a:size(d) end
  return T, B, D
end

return M
