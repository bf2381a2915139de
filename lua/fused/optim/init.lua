-- fused.optim: one file per optimizer in this folder, loaded on first use (fused.optim.Adam).
return setmetatable({}, {
  __index = function(optim, name)
    local ok, mod = pcall(require, 'fused.optim.' .. name)
    if not ok then
      if tostring(mod):find("module 'fused.optim." .. name .. "' not found", 1, true) then
        error("fused.optim has no '" .. tostring(name) .. "'", 2)
      end
      error(mod, 2)
    end
    rawset(optim, name, mod)
    return mod
  end,
})
