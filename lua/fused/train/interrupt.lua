-- Ctrl-C as a flag that a training loop polls between steps (c/core/signal.c), so that it can
-- save a checkpoint and stop cleanly instead of dying mid-step.
--
--   local ok, status = interrupt.catching(function()
--     for step = 1, n do ...; if interrupt.received() then <save>; return 130 end end
--   end)
local lib = require 'fused.lib'

local M = {}

-- pcall(fn) with SIGINT caught as the flag; the previous handler is back when it returns.
function M.catching(fn)
  lib.check(lib.C.fused_sigint_install())
  local results = { pcall(fn) }
  lib.check(lib.C.fused_sigint_restore())
  return unpack(results)
end

function M.received() return lib.C.fused_sigint_received() ~= 0 end

return M
