-- A table whose fields are modules loaded on first use: lazy('fused.nn').LLTMCell requires
-- 'fused.nn.LLTMCell'. One file per class, and no list to keep in step with the folder.
return function(prefix)
  return setmetatable({}, {
    __lazy = prefix, -- for the REPL's completion, which lists the folder's files
    __index = function(t, name)
      local ok, mod = pcall(require, prefix .. '.' .. tostring(name))
      if not ok then
        if tostring(mod):find("module '" .. prefix .. '.' .. tostring(name) .. "' not found", 1, true) then
          error(prefix .. " has no '" .. tostring(name) .. "'", 2)
        end
        error(mod, 2)
      end
      rawset(t, name, mod)
      return mod
    end,
  })
end
