-- Torch7's graph package as nngraph used it (torch/graph: Node.lua, Edge.lua, init.lua), the
-- classes under their names so that a gModule Torch7 saved loads and runs: graph.Node (data,
-- children, id, visited, marked), graph.Edge (from, to) and graph.Graph (nodes, edges), with
-- what building a gModule takes: a node's graph, a graph's reverse, its roots and a
-- topological order.
local class = require 'fused.th.class'

return function(graph)
  local Node = class.class('graph.Node', graph)

  function Node:__init(data)
    self.data = data
    self.id = 0
    self.children = {}
    self.visited = false
    self.marked = false
  end

  function Node:add(child)
    if not self.children[child] then
      table.insert(self.children, child)
      self.children[child] = #self.children
    end
  end

  -- The graph of every node reachable through children, an edge from each to each child.
  function Node:graph()
    local g, queue, seen = graph.Graph(), { self }, { [self] = true }
    local i = 1
    while queue[i] do
      local node = queue[i]
      for _, child in ipairs(node.children) do
        g:add(graph.Edge(node, child))
        if not seen[child] then
          seen[child] = true
          queue[#queue + 1] = child
        end
      end
      i = i + 1
    end
    return g
  end

  local Edge = class.class('graph.Edge', graph)

  function Edge:__init(from, to)
    self.from, self.to = from, to
  end

  local Graph = class.class('graph.Graph', graph)

  function Graph:__init()
    self.nodes, self.edges = {}, {}
  end

  local function add_node(self, node)
    if not self.nodes[node] then
      table.insert(self.nodes, node)
      self.nodes[node] = #self.nodes
    end
    node.id = self.nodes[node]
  end

  function Graph:add(edge)
    if not self.edges[edge] then
      table.insert(self.edges, edge)
      self.edges[edge] = #self.edges
    end
    add_node(self, edge.from)
    add_node(self, edge.to)
    edge.from:add(edge.to)
  end

  -- The graph with every edge reversed, on new nodes sharing the data; and the map from each
  -- node to its new one.
  function Graph:reverse()
    local rg, map = graph.Graph(), {}
    for _, e in ipairs(self.edges) do
      map[e.from] = map[e.from] or e.from.new(e.from.data)
      map[e.to] = map[e.to] or e.to.new(e.to.data)
      rg:add(graph.Edge(map[e.to], map[e.from]))
    end
    return rg, map
  end

  -- The nodes no edge leads to, in the graph's order.
  function Graph:roots()
    local has_parent = {}
    for _, e in ipairs(self.edges) do has_parent[e.to] = true end
    local roots = {}
    for _, node in ipairs(self.nodes) do
      if not has_parent[node] then roots[#roots + 1] = node end
    end
    return roots
  end

  -- The nodes in an order where each edge's from comes before its to (Kahn's, in the
  -- graph's order where several are ready).
  function Graph:topsort()
    local pending = {}
    for _, e in ipairs(self.edges) do pending[e.to] = (pending[e.to] or 0) + 1 end
    local order, ready = {}, self:roots()
    local i = 1
    while ready[i] do
      local node = ready[i]
      order[#order + 1] = node
      for _, child in ipairs(node.children) do
        pending[child] = pending[child] - 1
        if pending[child] == 0 then ready[#ready + 1] = child end
      end
      i = i + 1
    end
    if #order ~= #self.nodes then error('graph: the graph has cycles', 2) end
    return order
  end
end
