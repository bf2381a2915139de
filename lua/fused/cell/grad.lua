-- Reverse-mode differentiation of a cell's graph (fused.cell.define): the gradients at the
-- leaves, as nodes of the same graph, given the seeds at the outputs. Each activation's
-- derivative is written from its output where it can be (sigmoid: y (1 - y)), as the built-in
-- cells' backward steps are, so that forward's saved outputs serve.
local graph = require 'fused.cell.graph'

local M = {}

-- A select's gradients at its two branches: dy where it chose the branch, else 0.
local function chosen(g, y, dy)
  local a, b = y.args[1], y.args[2]
  return graph.op(g, y.op, a, b, dy, 0), graph.op(g, y.op, a, b, 0, dy)
end

-- For each op: the terms its args receive from dy, the gradient at its output y.
local rules = {
  add = function(g, y, dy) return dy, dy end,
  sub = function(g, y, dy) return dy, graph.op(g, 'neg', dy) end,
  mul = function(g, y, dy)
    return graph.op(g, 'mul', dy, y.args[2]), graph.op(g, 'mul', dy, y.args[1])
  end,
  div = function(g, y, dy)
    local da = graph.op(g, 'div', dy, y.args[2])
    return da, graph.op(g, 'neg', graph.op(g, 'mul', da, y))
  end,
  neg = function(g, y, dy) return graph.op(g, 'neg', dy) end,
  sigmoid = function(g, y, dy) return graph.op(g, 'mul', dy, graph.op(g, 'dsigmoid', y)) end,
  tanh = function(g, y, dy) return graph.op(g, 'mul', dy, graph.op(g, 'dtanh', y)) end,
  elu = function(g, y, dy) return graph.op(g, 'mul', dy, graph.op(g, 'delu', y)) end,
  exp = function(g, y, dy) return graph.op(g, 'mul', dy, y) end,
  log = function(g, y, dy) return graph.op(g, 'div', dy, y.args[1]) end,
  sqrt = function(g, y, dy) return graph.op(g, 'div', dy, graph.op(g, 'mul', 2, y)) end,
  sin = function(g, y, dy) return graph.op(g, 'mul', dy, graph.op(g, 'cos', y.args[1])) end,
  cos = function(g, y, dy)
    return graph.op(g, 'neg', graph.op(g, 'mul', dy, graph.op(g, 'sin', y.args[1])))
  end,
  stop = function() end, -- F.stop_gradient: no gradient reaches its argument
  softplus = function(g, y, dy)
    return graph.op(g, 'mul', dy, graph.op(g, 'sigmoid', y.args[1]))
  end,
  -- The kinks as PyTorch's autograd takes them (tools/autograd/derivatives.yaml): abs,
  -- grad * self.sgn() (0 at 0); relu, threshold_backward(grad, result, 0) (0 where the result
  -- is <= 0); maximum, where(self == other, grad / 2, grad).masked_fill_(self < other, 0)
  -- for self and masked_fill_(self > other, 0) for other (half to each at a tie); minimum
  -- the same with < and > swapped.
  abs = function(g, y, dy)
    local x = y.args[1]
    local sgn = graph.op(g, 'select_lt', 0, x, 1, graph.op(g, 'select_lt', x, 0, -1, 0))
    return graph.op(g, 'mul', dy, sgn)
  end,
  relu = function(g, y, dy) return graph.op(g, 'select_le', y, 0, 0, dy) end,
  max = function(g, y, dy)
    local a, b = y.args[1], y.args[2]
    local share = graph.op(g, 'select_eq', a, b, graph.op(g, 'div', dy, 2), dy)
    return graph.op(g, 'select_lt', a, b, 0, share), graph.op(g, 'select_lt', b, a, 0, share)
  end,
  -- F.where(cond, p, q) is a select_* over the condition's two sides: the gradient goes to
  -- the chosen branch and none to the sides (a comparison has no derivative)
  select_lt = function(g, y, dy) return nil, nil, chosen(g, y, dy) end,
  select_le = function(g, y, dy) return nil, nil, chosen(g, y, dy) end,
  select_eq = function(g, y, dy) return nil, nil, chosen(g, y, dy) end,
  min = function(g, y, dy)
    local a, b = y.args[1], y.args[2]
    local share = graph.op(g, 'select_eq', a, b, graph.op(g, 'div', dy, 2), dy)
    return graph.op(g, 'select_lt', b, a, 0, share), graph.op(g, 'select_lt', a, b, 0, share)
  end,
}

-- seeds: {{output node, gradient node}, ...}. Returns {[node] = gradient node} for every node the
-- outputs depend on (leaves included); a node absent has gradient 0.
function M.backward(g, seeds)
  local roots = {}
  for i, pair in ipairs(seeds) do roots[i] = pair[1] end
  local order = graph.reachable(roots)
  local adj = {}
  for _, pair in ipairs(seeds) do
    local out, seed = pair[1], pair[2]
    adj[out] = adj[out] and graph.op(g, 'add', adj[out], seed) or seed
  end
  for i = #order, 1, -1 do
    local y = order[i]
    local dy = adj[y]
    if dy and #y.args > 0 then
      local terms = { assert(rules[y.op], 'fused.cell: no gradient rule for ' .. y.op)(g, y, dy) }
      for k, a in ipairs(y.args) do
        local t = terms[k]
        if t and not (t.op == 'const' and t.value == 0) then
          adj[a] = adj[a] and graph.op(g, 'add', adj[a], t) or t
        end
      end
    end
  end
  return adj
end

return M
