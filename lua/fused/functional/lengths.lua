-- The `lengths` of a ragged batch as the sequence engine takes them: a Lua list of B step
-- counts (sequence b runs steps 1..lengths[b]), checked here so that the error names the
-- user's argument, then an int64_t[B]; nil stays nil (every sequence runs all T steps).
local ffi = require 'ffi'

local M = {}

-- level: error's, seen from the caller of check.
function M.check(lengths, T, B, fn, level)
  if lengths == nil then return nil end
  level = level + 1
  if type(lengths) ~= 'table' then
    error(string.format("%s: argument 'lengths' expected a list of %d step counts, got %s", fn, B,
                        type(lengths)), level)
  end
  if #lengths ~= B then
    error(string.format("%s: argument 'lengths' expected %d step counts (B from 'xs'), got %d", fn,
                        B, #lengths), level)
  end
  local a = ffi.new('int64_t[?]', B)
  for i = 1, B do
    local n = lengths[i]
    if type(n) ~= 'number' or n ~= math.floor(n) or n < 1 or n > T then
      error(string.format("%s: argument 'lengths' expected integers 1 to %d (T from 'xs'), got %s "
                          .. "at position %d", fn, T, tostring(n), i), level)
    end
    a[i - 1] = n
  end
  return a
end

return M
