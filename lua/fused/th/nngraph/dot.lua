-- graph.dot(g.fg, title[, fname]): the graph in Graphviz's dot language, as nngraph's
-- graphinspecting.lua made it; with fname, written to fname .. '.dot' (nngraph also ran
-- Graphviz for an .svg and, without fname, showed it in a window: neither is done here, draw
-- the .dot with `dot -Tsvg`). g.fg is the forward graph, g.bg the backward.
local file = require 'fused.file'

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
  if type(g) ~= 'table' or type(g.nodes) ~= 'table' or type(g.edges) ~= 'table' then
    error("graph.dot: argument 'graph' expected a graph (a gModule's fg or bg), got " .. type(g), 3)
  end
  local lines = { 'digraph ' .. quote(title or 'G') .. ' {' }
  for i, node in ipairs(g.nodes) do
    local label = node:graphNodeName() .. '\n' .. node:label()
    if node.data.annotations.description then label = label .. '\n' .. node.data.annotations.description end
    lines[#lines + 1] = '  n' .. i .. ' ' .. attributes(node, label) .. ';'
  end
  for _, e in ipairs(g.edges) do
    lines[#lines + 1] = '  n' .. g.nodes[e.from] .. ' -> n' .. g.nodes[e.to] .. ';'
  end
  lines[#lines + 1] = '}'
  return table.concat(lines, '\n') .. '\n'
end

return function(g, title, fname)
  local text = todot(g, title)
  if fname then file.write_atomic('graph.dot', fname .. '.dot', { text }) end
  return text
end
