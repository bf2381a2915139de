-- The one check of an options table ({dtype = 'float64'}, {lr = 1e-3}, ...), shared by every
-- function that takes one: a misspelt key is an error, never silently ignored.
local blame = require 'fused.blame'

local M = {}

-- What check returns for nil: shared, so that the common call without options allocates nothing.
local NONE = setmetatable({}, { __newindex = function() error('fused.options: the empty options are read-only', 2) end })

-- opts (nil for none) must be a table whose keys are all among `accepted` (a list of names);
-- returns opts, or an empty table for nil. Errors are blamed on the user's line.
function M.check(opts, fn, accepted)
  if opts == nil then return NONE end
  if type(opts) ~= 'table' then
    blame(string.format("%s: argument 'opts' expected a table of options (%s), got %s", fn,
                        table.concat(accepted, ', '), type(opts)))
  end
  for k in pairs(opts) do
    local known = false
    for _, name in ipairs(accepted) do
      if k == name then known = true; break end
    end
    if not known then
      local key = type(k) == 'string' and "'" .. k .. "'" or '[' .. tostring(k) .. ']'
      blame(string.format("%s: unknown option %s (expected one of: %s)", fn, key,
                          table.concat(accepted, ', ')))
    end
  end
  return opts
end

return M
