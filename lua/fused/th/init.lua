-- `fused th script.lua [args]` runs a Torch7 program as written: inside it, require of Torch7's
-- packages loads fused.th.<package>, Torch7's names and meanings over fused, `torch` is a
-- global as th made it, and the Tensor methods whose meaning differs take Torch7's
-- (fused/th/torch/tensor.lua). Outside it nothing here is loaded and fused keeps PyTorch's
-- meanings (docs/torch7.md lists the forms whose meaning differs); the library's own code
-- never calls those forms (spec/th_library_forms_spec.lua), so it runs the same in both.
local M = {}

M.PACKAGES = { 'torch', 'nn', 'optim', 'nngraph', 'paths', 'cutorch', 'cunn' }

local function searcher(name)
  for _, p in ipairs(M.PACKAGES) do
    if p == name then return function() return require('fused.th.' .. name) end end
  end
end

-- Makes Torch7's packages the ones `require` finds, before any file on package.path, and the
-- Tensor methods Torch7's.
function M.install()
  if M.installed() then return end
  table.insert(package.loaders, 2, searcher)
  require('fused.th.torch.tensor').install()
  rawset(_G, 'torch', require 'torch')
  pcall(require, 'pl') -- Penlight's modules as lazy globals (path, stringx...), as th's trepl loaded them
end

function M.installed()
  for _, loader in ipairs(package.loaders) do
    if loader == searcher then return true end
  end
  return false
end

-- Undoes install() (specs run Torch7 mode inside busted this way): fused's methods back,
-- Torch7's packages no longer found nor loaded, no global torch.
function M.uninstall()
  for i, loader in ipairs(package.loaders) do
    if loader == searcher then table.remove(package.loaders, i); break end
  end
  require('fused.th.torch.tensor').uninstall()
  for _, p in ipairs(M.PACKAGES) do package.loaded[p] = nil end
  rawset(_G, 'torch', nil)
end

return M
