-- graph.dot(g.fg, title[, fname]): the graph in Graphviz's dot language, as nngraph's
-- graphinspecting.lua made it; with fname, written to fname .. '.dot' (nngraph also ran
-- Graphviz for an .svg and, without fname, showed it in a window: neither is done here, draw
-- the .dot with `dot -Tsvg`). g.fg is the forward graph, g.bg the backward (edges reversed).
local function quote(s) return '"' .. tostring(s):gsub('\\', '\\\\'):gsub('"', '\\"'):gsub('\n', '\\n') .. '"' end

local function attributes(node, label)
  local list = { 'label=' .. quote(label) }
  local extra = node.data.annotations.graphAttributes or {}
  local keys = {}
  for k in pairs(extra) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do list[#list + 1] = k .. '=' .. quote(extra[k]) end
  return '[' .. table.concat(list, ', ') .. ']'
end

local function todot(g, title)
  if type(g) ~= 'table' or type(g.nodes) ~= 'table' then
    error("graph.dot: argument 'graph' expected a gModule's fg or bg, got " .. type(g), 3)
  end
  local id, lines = {}, { 'digraph ' .. quote(title or 'G') .. ' {' }
  for i, node in ipairs(g.nodes) do
    id[node] = 'n' .. i
    local label = node:graphNodeName() .. ' (' .. i .. ')'
    if node.data.annotations.description then label = label .. '\n' .. node.data.annotations.description end
    lines[#lines + 1] = '  ' .. id[node] .. ' ' .. attributes(node, label) .. ';'
  end
  for _, node in ipairs(g.nodes) do
    for _, from in ipairs(node.inputs) do
      local a, b = id[from], id[node]
      if g.backward then a, b = b, a end
      lines[#lines + 1] = '  ' .. a .. ' -> ' .. b .. ';'
    end
  end
  lines[#lines + 1] = '}'
  return table.concat(lines, '\n') .. '\n'
end

return function(g, title, fname)
  local text = todot(g, title)
  if fname then
    local path = fname .. '.dot'
    local tmp = path .. '.tmp'
    local f = assert(io.open(tmp, 'w'))
    f:write(text)
    f:close()
    assert(os.rename(tmp, path))
  end
  return text
end
