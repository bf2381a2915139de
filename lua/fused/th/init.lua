-- `fused th script.lua [args]` runs a Torch7 program as written: inside it, require of Torch7's
-- packages loads fused.th.<package>, Torch7's names and meanings over fused, and `torch` is a
-- global as th made it. Outside it nothing here is loaded and fused keeps
-- PyTorch's meanings (docs/torch7.md lists the forms whose meaning differs); the library's own
-- code never calls those forms (spec/layers_spec.lua), so it runs the same in both.
local M = {}

M.PACKAGES = { 'torch', 'nn', 'optim', 'nngraph', 'paths', 'cutorch', 'cunn' }

local function searcher(name)
  for _, p in ipairs(M.PACKAGES) do
    if p == name then return function() return require('fused.th.' .. name) end end
  end
end

-- Makes Torch7's packages the ones `require` finds, before any file on package.path.
function M.install()
  table.insert(package.loaders, 2, searcher)
  rawset(_G, 'torch', require 'torch')
end

return M
