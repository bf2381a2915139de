-- Lets an example run from a checkout after `make`, as `luajit examples/x.lua` from any folder:
-- the checkout's lua/ (beside examples/) goes on package.path, after LUA_PATH and an installed
-- fused. An example runs it first, by its own path, since nothing can be required before it:
--   dofile(debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. 'checkout.lua')
local lua = debug.getinfo(1, 'S').source:match('^@(.-)[^/]*$') .. '../lua/'
package.path = package.path .. ';' .. lua .. '?.lua;' .. lua .. '?/init.lua'
