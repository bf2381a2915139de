-- Lets a benchmark run from a checkout after `make`, as `luajit bench/x.lua` from any folder:
-- the checkout's lua/ (beside bench/) and the checkout's root (for require 'bench.common') go on
-- package.path, after LUA_PATH and an installed fused. A benchmark runs it first, by its own path:
--   dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local root = debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. '../'
package.path = package.path .. ';' .. root .. 'lua/?.lua;' .. root .. 'lua/?/init.lua;'
  .. root .. '?.lua'
