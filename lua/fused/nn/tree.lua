-- Modules kept anywhere in a module's fields: in a field, or in a plain Lua table there (a
-- list of modules is PyTorch's ModuleList, a table by name its ModuleDict), at any depth.
-- Module's children() and shared_clone() walk them here.
local M = {}

-- A module instance (a class has its own __index; an object whose __index is a function, a
-- sparse matrix, is not one, and may raise on the field asked).
function M.is_module(v)
  return type(v) == 'table' and getmetatable(v) ~= nil and type(getmetatable(v).__index) == 'table'
    and v.parameters ~= nil and rawget(v, '__index') == nil
end

local function is_plain_table(v) return type(v) == 'table' and getmetatable(v) == nil end

-- A table's keys in a stable order: the numbers ascending, then the rest by name.
local function sorted_keys(t, skip)
  local keys = {}
  for k in pairs(t) do
    if not (skip and skip[k]) and (type(k) == 'number' or type(k) == 'string') then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then return type(a) == 'number' end
    return a < b
  end)
  return keys
end

-- Adds the modules in t (a module's fields, or a plain table inside them: a list of modules is
-- PyTorch's ModuleList, a table by name its ModuleDict) to list, named as PyTorch names them:
-- the field, then each position from 0 or key ('layers.0', 'blocks.enc').
function M.collect(t, prefix, list, names, seen, skip)
  seen[t] = true
  for _, k in ipairs(sorted_keys(t, skip)) do
    local v, name = t[k], prefix .. (type(k) == 'number' and tostring(k - 1) or k)
    if M.is_module(v) then
      list[#list + 1], names[#names + 1] = v, name
    elseif is_plain_table(v) and not seen[v] then
      M.collect(v, name .. '.', list, names, seen)
    end
  end
end

local function holds_module(t, seen)
  seen[t] = true
  for _, v in pairs(t) do
    if M.is_module(v) or (is_plain_table(v) and not seen[v] and holds_module(v, seen)) then return true end
  end
  return false
end

-- v as a shared_clone holds it: a module cloned, a plain table that holds modules (at any
-- depth) copied with its modules cloned, anything else shared. earlier: what an earlier clone
-- held there, re-pointed rather than made anew; seen: the tables copied so far.
function M.clone_value(v, earlier, seen)
  if M.is_module(v) then
    if seen[v] then return seen[v] end
    seen[v] = v:shared_clone(not rawequal(earlier, v) and M.is_module(earlier) and earlier or nil)
    return seen[v]
  end
  if not is_plain_table(v) or not holds_module(v, {}) then return v end
  if seen[v] then return seen[v] end
  local c = is_plain_table(earlier) and not rawequal(earlier, v) and earlier or {}
  seen[v] = c
  for k in pairs(c) do
    if v[k] == nil then c[k] = nil end
  end
  for k, x in pairs(v) do c[k] = M.clone_value(x, c[k], seen) end
  return c
end

return M
