-- Runs one of nngraph's README examples (examples/torch7/nngraph-readme/) as the README runs
-- them: after require 'nngraph'. graph.dot, which draws with graphviz on a display, records its
-- title instead ('dot TITLE'). Then each gModule the example made prints the sizes of its
-- output and gradInput ('g output 50 gradInput 2x10'; a table's as {1,1}).
--   fused th spec/th_programs/nngraph_readme.lua EXAMPLE
require 'nngraph'
graph = { dot = function(_, title) io.write('dot ', title, '\n') end }
dofile(...)

local function sizes(x)
  if type(x) == 'table' then
    local parts = {}
    for i, v in ipairs(x) do parts[i] = sizes(v) end
    return '{' .. table.concat(parts, ',') .. '}'
  end
  local dims = {}
  for d = 1, x:dim() do dims[d] = x:size(d) end
  return #dims == 0 and 'empty' or table.concat(dims, 'x')
end

for _, name in ipairs({ 'mlp', 'gmod', 'g' }) do
  local m = rawget(_G, name)
  if m then print(name .. ' output ' .. sizes(m.output) .. ' gradInput ' .. sizes(m.gradInput)) end
end
