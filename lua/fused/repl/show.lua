-- The text the REPL prints for the values of an expression: tensors, modules and anything with
-- a __tostring through tostring; strings as they are; a plain table as its contents,
-- {2, 3, name = 'x'}, as Torch7's REPL does. Several values are separated by tabs, or by newlines
-- when one of them spans lines (a tensor).
local M = {}

local MAX_ENTRIES = 20 -- a longer table ends with '...'
local MAX_DEPTH = 2    -- deeper tables show as {...}

local function has_tostring(v)
  local mt = getmetatable(v)
  return type(mt) == 'table' and rawget(mt, '__tostring') ~= nil
end

local item

-- A value inside a table, on one line: a tensor as its summary line, a model as its first.
local function inline(v, depth)
  if type(v) == 'string' then return string.format('%q', v) end
  if type(v) == 'table' and not has_tostring(v) then return item(v, depth) end
  local text = tostring(v)
  if not text:find('\n', 1, true) then return text end
  return type(v) == 'cdata' and text:match('[^\n]*$') or text:match('^[^\n]*') .. ' ...'
end

local function key_text(k, depth)
  if type(k) == 'string' and k:match('^[%a_][%w_]*$') then return k end
  return '[' .. inline(k, depth) .. ']'
end

function item(t, depth)
  if depth > MAX_DEPTH then return '{...}' end
  local parts, n = {}, #t
  for i = 1, math.min(n, MAX_ENTRIES) do parts[i] = inline(t[i], depth + 1) end
  local keys = {}
  for k in pairs(t) do
    if not (type(k) == 'number' and k >= 1 and k <= n and k == math.floor(k)) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    if #parts >= MAX_ENTRIES then break end
    parts[#parts + 1] = key_text(k, depth + 1) .. ' = ' .. inline(t[k], depth + 1)
  end
  if n + #keys > MAX_ENTRIES then parts[#parts + 1] = '...' end
  return '{' .. table.concat(parts, ', ') .. '}'
end

-- One value as the REPL prints it.
function M.value(v)
  if type(v) == 'table' and not has_tostring(v) then return item(v, 1) end
  return tostring(v)
end

-- The values (n of them: nils count) on the lines the REPL prints; '' for none.
function M.values(n, ...)
  local texts, sep = {}, '\t'
  for i = 1, n do
    texts[i] = M.value((select(i, ...)))
    if texts[i]:find('\n', 1, true) then sep = '\n' end
  end
  return table.concat(texts, sep)
end

return M
