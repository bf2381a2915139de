-- nngraph.Node (nngraph's node.lua): a graph.Node whose data holds the module it applies
-- (data.module), the data of the nodes feeding it in order (data.mapindex), the nodes it
-- feeds (data.reverseMap) and its annotations; its children are the nodes feeding it.
-- module(node), module({a, b}) and module() make one (nngraph.lua); node:split(n) gives n
-- nodes, each one entry of node's output (a table).
local class = require 'fused.th.class'

-- '[file]:line' of the user's code that made the node (the first caller outside these files),
-- which gModule's errors name.
local function user_line()
  for level = 3, 30 do
    local info = debug.getinfo(level, 'Sl')
    if not info then return '?' end
    if info.what ~= 'C' and not info.source:match('fused/th/') then
      return string.format('[%s]:%d', info.short_src, info.currentline)
    end
  end
  return '?'
end

return function(nngraph)
  local Node, parent = class.class('nngraph.Node', 'graph.Node', nngraph)

  function Node:__init(data)
    parent.__init(self, data)
    self.data.annotations = self.data.annotations or {}
    self.data.mapindex = self.data.mapindex or {}
    self.data.reverseMap = self.data.reverseMap or {}
    self.data.annotations._debugLabel = self.data.annotations._debugLabel or user_line()
  end

  -- child feeds this node; with domap, as its next input (mapindex) and this node as one it
  -- feeds (reverseMap).
  function Node:add(child, domap)
    parent.add(self, child)
    if domap then
      local mapindex, data = self.data.mapindex, child.data
      if mapindex[data] then error('nngraph: the same node is passed twice as an input of one module', 4) end
      table.insert(mapindex, data)
      mapindex[data] = #mapindex
      child.data.reverseMap[self] = true
    end
  end

  function Node:split(noutput)
    if type(noutput) ~= 'number' or noutput < 1 or noutput ~= math.floor(noutput) then
      error("nngraph.Node:split: argument 'noutput' expected a positive integer, got " .. tostring(noutput), 2)
    end
    if noutput == 1 then return nngraph.JustElement()(self) end
    local label = self.data.annotations._debugLabel
    local mnode = nngraph.Node({ nSplitOutputs = noutput, annotations = { _debugLabel = label } })
    mnode:add(self, true)
    local nodes = {}
    for i = 1, noutput do
      nodes[i] = nngraph.Node({ selectindex = i, input = {}, annotations = { _debugLabel = label .. '-' .. i } })
      nodes[i]:add(mnode, true)
    end
    return unpack(nodes)
  end

  function Node:annotate(annotations)
    for k, v in pairs(annotations) do self.data.annotations[k] = v end
    return self
  end

  function Node:graphNodeName()
    if self.data.annotations.name then return self.data.annotations.name .. ' (' .. self.id .. ')' end
    return 'Node' .. self.id
  end

  -- What the node is: its module's name, or its part in a split.
  function Node:label()
    local d = self.data
    if d.module then return tostring(d.module):match('^[^\n]*') end
    if d.selectindex then return 'selectindex = ' .. d.selectindex end
    if d.nSplitOutputs then return 'nSplitOutputs = ' .. d.nSplitOutputs end
    return 'Node'
  end

  -- node - module is module(node), as nngraph's.
  function Node:__sub__(module) return module(self) end

  function Node:__tostring__() return 'nngraph.Node(' .. self:label() .. ' ' .. self.data.annotations._debugLabel .. ')' end
end
