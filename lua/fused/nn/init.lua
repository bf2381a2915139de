-- fused.nn: one file per module in this folder, loaded on first use (fused.nn.LLTMCell).
return setmetatable({}, {
  __index = function(nn, name)
    local ok, mod = pcall(require, 'fused.nn.' .. name)
    if not ok then
      if tostring(mod):find("module 'fused.nn." .. name .. "' not found", 1, true) then
        error("fused.nn has no module '" .. tostring(name) .. "'", 2)
      end
      error(mod, 2)
    end
    rawset(nn, name, mod)
    return mod
  end,
})
