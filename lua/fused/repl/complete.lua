-- Tab completion's candidates for the word before the cursor: globals and keywords ('fus' ->
-- 'fused'), a table's fields ('fused.ze' -> 'fused.zeros'), a module's fields and methods, a
-- tensor's methods ('x:ad' -> 'x:add', 'x:addmm_'). Only names are looked up, with rawget and
-- the tables of __index chains: completing never calls a function, so never raises.
local tensor = require 'fused.tensor'
local argcheck = require 'fused.check'

local M = {}

local KEYWORDS = { 'and', 'break', 'do', 'else', 'elseif', 'end', 'false', 'for', 'function', 'if',
                   'in', 'local', 'nil', 'not', 'or', 'repeat', 'return', 'then', 'true', 'until',
                   'while' }

-- The module names of a lazy table (fused.nn): the .lua files of its folder, listed once.
local folder_names = {}
local function lazy_names(prefix)
  if folder_names[prefix] then return folder_names[prefix] end
  local names, init = {}, package.searchpath(prefix, package.path)
  local dir = init and init:match('^(.*)/init%.lua$')
  local ls = dir and io.popen("ls '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null")
  if ls then
    for file in ls:lines() do names[#names + 1] = file:match('^([%a_][%w_]*)%.lua$') end
    ls:close()
  end
  folder_names[prefix] = names
  return names
end

-- Calls add(name, value) for each string key of t and of the tables its __index chain reaches.
local function each_field(t, add)
  local visited = {}
  while true do
    if argcheck.is_tensor(t) then t = tensor.Tensor end
    if type(t) ~= 'table' or visited[t] then return end -- a class's __index is itself
    visited[t] = true
    for k, v in pairs(t) do
      if type(k) == 'string' then add(k, v) end
    end
    local mt = getmetatable(t)
    if type(mt) ~= 'table' then return end
    if type(rawget(mt, '__lazy')) == 'string' then
      for _, name in ipairs(lazy_names(mt.__lazy)) do add(name, true) end
    end
    t = rawget(mt, '__index')
  end
end

-- t[k] without calling anything: t's own field, or one found along its __index tables.
local function lookup(t, k)
  local found
  each_field(t, function(name, v) if name == k and found == nil then found = v end end)
  return found
end

-- The completions of `word` in the environment env (the REPL's globals), sorted.
function M.candidates(word, env)
  local path, sep, partial = word:match('^([%w_%.]-)([%.:])([%w_]*)$')
  local target = env
  if path then
    for name in (path .. '.'):gmatch('([^%.]*)%.') do
      if name == '' then return {} end
      target = lookup(target, name)
    end
  else
    path, sep, partial = '', '', word
    if not word:match('^[%w_]*$') then return {} end
  end
  local seen, list = {}, {}
  local function add(name, v)
    if seen[name] or name:sub(1, #partial) ~= partial or not name:match('^[%a_][%w_]*$') then return end
    if name:sub(1, 2) == '__' and partial:sub(1, 2) ~= '__' then return end -- metamethods
    if sep == ':' and type(v) ~= 'function' then return end
    seen[name] = true
    list[#list + 1] = path .. sep .. name
  end
  each_field(target, add)
  if sep == '' then
    for _, k in ipairs(KEYWORDS) do add(k, true) end
  end
  table.sort(list)
  return list
end

return M
