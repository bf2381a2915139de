-- nngraph.Node: a module applied to the outputs of other nodes (its inputs, in order), as
-- nngraph's node.lua. module(node), module({a, b}) and module() make one (nngraph.lua);
-- node:split(n) gives n nodes, each one entry of node's output (a table).
local class = require 'fused.th.class'

-- '[file]:line' of the user's code that made the node (the first caller outside these files),
-- which gModule's errors name.
local function user_line()
  for level = 3, 20 do
    local info = debug.getinfo(level, 'Sl')
    if not info then return '?' end
    if info.what ~= 'C' and not info.source:match('fused/th/') then
      return string.format('[%s]:%d', info.short_src, info.currentline)
    end
  end
  return '?'
end

return function(nngraph)
  local Node = class.class('nngraph.Node', nngraph)

  -- data: {module = m} (nil for a split's entry), inputs: the nodes whose outputs feed it.
  function Node:__init(data, inputs)
    self.data = data
    self.data.annotations = self.data.annotations or {}
    self.inputs = inputs or {}
    self.data.annotations._debugLabel = self.data.annotations._debugLabel or user_line()
  end

  function Node:split(noutput)
    if type(noutput) ~= 'number' or noutput < 1 or noutput ~= math.floor(noutput) then
      error("nngraph.Node:split: argument 'noutput' expected a positive integer, got " .. tostring(noutput), 2)
    end
    self.data.nSplitOutputs = noutput
    local nodes = {}
    for i = 1, noutput do nodes[i] = nngraph.Node({ selectindex = i }, { self }) end
    return unpack(nodes)
  end

  function Node:annotate(annotations)
    for k, v in pairs(annotations) do self.data.annotations[k] = v end
    return self
  end

  function Node:graphNodeName()
    return self.data.annotations.name or class.typename(self.data.module) or 'Node'
  end

  -- node - module is module(node), as nngraph's.
  function Node:__sub__(module) return module(self) end

  function Node:__tostring__()
    return 'nngraph.Node(' .. self:graphNodeName() .. ' ' .. (self.data.annotations._debugLabel or '') .. ')'
  end

  return nngraph.Node
end
