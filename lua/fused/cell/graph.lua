-- The expression graph of a cell's step (fused.cell.define): nodes made once per distinct
-- expression (so common subexpressions are one node), constants folded and only the
-- identities that hold for every IEEE value applied (x * 1, x + -0.0, x - 0, -(-x); not
-- x * 0, 0 / x, x - x, x / x or 0 + x, which -0.0, inf and NaN break). Symbols are nodes with
-- arithmetic metamethods, so the user's step, run once on them, records its equations.
--
-- A node: op, args (nodes), id (creation order: args come before their users), fwd (true
-- unless it depends on a backward seed), graph, and value (op 'const') or index (leaves gx,
-- gh, c, p, dc) and label (a state's or parameter's name). Leaves: gx, gh (gate k's products,
-- biases included), h, c (the states the step starts from: h, the one the recurrent product
-- reads, and the others, index k), p (per-unit parameter k), dh, dc (the backward's seeds: the
-- gradients at the new states); a linear cell's (cell/linear.lua) x (the layer's input at the
-- unit), reset, ns (new state k, which its computed outputs read), and the seeds dA, db, dy
-- (the gradients at its coefficients and outputs).
local M = {}

-- A cell's graph, forward and backward together, has at most this many nodes: each is about a
-- line of C, and gcc's time grows faster than the lines (-O3 on 2 shared cores: 4,000 lines
-- 7 s of CPU, 12,000 lines 2.5 minutes; -O1 grows as fast).
M.MAX_NODES = 4000

local Node = {}

local function is_node(v) return getmetatable(v) == Node end
M.is_node = is_node

local current -- the graph of the step that is running, which symbols must belong to

local function sigmoid(x) return 1 / (1 + math.exp(-x)) end
local function tanh(x)
  if x == 0 then return x end -- keeps -0.0, as C's tanh does
  local e = math.exp(-2 * math.abs(x))
  local t = (1 - e) / (1 + e)
  return x < 0 and -t or t
end
-- PyTorch's maximum and minimum: a NaN on either side is the result
local function max(a, b) if a ~= a or a > b then return a end return b end
local function min(a, b) if a ~= a or a < b then return a end return b end

-- What each operation computes, for folding constants (in float64, as PyTorch computes with
-- Python numbers).
M.eval = {
  add = function(a, b) return a + b end,
  sub = function(a, b) return a - b end,
  mul = function(a, b) return a * b end,
  div = function(a, b) return a / b end,
  neg = function(a) return -a end,
  sigmoid = sigmoid,
  tanh = tanh,
  exp = math.exp,
  log = math.log,
  sqrt = math.sqrt,
  sin = math.sin,
  cos = math.cos,
  stop = function(x) return x end,
  abs = math.abs,
  softplus = function(x) return math.max(x, 0) + math.log(1 + math.exp(-math.abs(x))) end,
  elu = function(x) return x > 0 and x or math.exp(x) - 1 end,
  relu = function(x) return max(x, 0) end,
  max = max,
  min = min,
  select_lt = function(a, b, p, q) if a < b then return p end return q end,
  select_le = function(a, b, p, q) if a <= b then return p end return q end,
  select_eq = function(a, b, p, q) if a == b then return p end return q end,
  dsigmoid = function(y) return y * (1 - y) end,
  dtanh = function(y) return 1 - y * y end,
  delu = function(y) return y > 0 and 1 or y + 1 end,
}

-- name: the cell's, for errors.
function M.new(name)
  return { name = name, nodes = {}, by_key = {} }
end

-- The key of a constant: its exact value, -0.0 apart from 0.
local function constant_key(v)
  if v == 0 and 1 / v < 0 then return 'const -0' end
  return 'const ' .. string.format('%.17g', v)
end

local function make(g, op, args, extra, label)
  local key = op == 'const' and constant_key(extra) or (extra and op .. ' ' .. extra or op)
  local ids = {}
  for i, a in ipairs(args) do ids[i] = a.id end
  -- a + b is b + a exactly in IEEE arithmetic, and so is a * b
  if op == 'add' or op == 'mul' then table.sort(ids) end
  key = key .. '(' .. table.concat(ids, ',') .. ')'
  local found = g.by_key[key]
  if found then return found end
  if #g.nodes >= M.MAX_NODES then
    error(string.format('the graph of the step and its gradients passed %d nodes, the most a '
                        .. 'cell may have (each is a line of C: a bigger cell would compile '
                        .. 'for minutes)', M.MAX_NODES), 0)
  end
  local fwd = op ~= 'dh' and op ~= 'dc' and op ~= 'dA' and op ~= 'db' and op ~= 'dy'
  for _, a in ipairs(args) do fwd = fwd and a.fwd end
  local n = { op = op, args = args, id = #g.nodes + 1, fwd = fwd, graph = g }
  if op == 'const' then n.value = extra else n.index, n.label = extra, label or false end
  setmetatable(n, Node)
  g.nodes[n.id] = n
  g.by_key[key] = n
  return n
end

function M.const(g, v) return make(g, 'const', {}, v) end
function M.leaf(g, op, index, label) return make(g, op, {}, index, label) end

local function is_const(n, v) return n.op == 'const' and (v == nil or n.value == v) end
local function is_neg_zero(n) return n.op == 'const' and n.value == 0 and 1 / n.value < 0 end
local function is_pos_zero(n) return n.op == 'const' and n.value == 0 and 1 / n.value > 0 end

-- The node of op over args (nodes or numbers), simplified where the result is the same for
-- every value of the args.
function M.op(g, op, ...)
  local args = { ... }
  local all_const = true
  for i, a in ipairs(args) do
    if type(a) == 'number' then args[i] = M.const(g, a) end
    all_const = all_const and args[i].op == 'const'
  end
  if all_const then
    local vals = {}
    for i, a in ipairs(args) do vals[i] = a.value end
    return M.const(g, M.eval[op](unpack(vals)))
  end
  local a, b = args[1], args[2]
  if op == 'add' then
    if is_neg_zero(a) then return b end -- -0.0 + x is x; 0 + x is not (0 + -0.0 is 0)
    if is_neg_zero(b) then return a end
    if b.op == 'neg' then return M.op(g, 'sub', a, b.args[1]) end
    if a.op == 'neg' then return M.op(g, 'sub', b, a.args[1]) end
  elseif op == 'sub' then
    if is_pos_zero(b) then return a end
    if is_neg_zero(a) then return M.op(g, 'neg', b) end
    if b.op == 'neg' then return M.op(g, 'add', a, b.args[1]) end
  elseif op == 'mul' then -- not x * 0: inf * 0 is NaN, -1 * 0 is -0.0
    if is_const(a, 1) then return b end
    if is_const(b, 1) then return a end
    if is_const(a, -1) then return M.op(g, 'neg', b) end
    if is_const(b, -1) then return M.op(g, 'neg', a) end
  elseif op == 'div' then -- not 0 / x: 0 / 0 is NaN, 0 / -1 is -0.0
    if is_const(b, 1) then return a end
  elseif op == 'neg' then
    if a.op == 'neg' then return a.args[1] end
  elseif op:match('^select_') then
    if rawequal(args[3], args[4]) then return args[3] end
  elseif op == 'log' then
    -- log(1 + exp(x)) overflows to inf for x > 709 (88 in float32): softplus, the same value
    -- within rounding, does not (documented: docs/extending.md)
    if a.op == 'add' then
      local one, e = a.args[1], a.args[2]
      if not is_const(one, 1) then one, e = e, one end
      if is_const(one, 1) and e.op == 'exp' then return M.op(g, 'softplus', e.args[1]) end
    end
  end
  return make(g, op, args)
end

-- Runs f with the graph that numbers combined with symbols are made in.
function M.within(g, f, ...)
  local before = current
  current = g
  local results = { pcall(f, ...) }
  current = before
  if not results[1] then error(results[2], 0) end
  return unpack(results, 2, table.maxn(results))
end

-- The graph a user's expression over v (a symbol) is made in: the running step's. A symbol
-- kept from another step would be a constant to this one's gradients: refused.
function M.graph_of(v, level)
  if not current then
    error(string.format("a symbol of cell '%s' used outside its step (symbols are made and "
                        .. 'used while fused.cell.define runs the step)', v.graph.name), level + 1)
  end
  if v.graph ~= current then
    local of = v.graph.name == current.name and 'another definition of cell' or 'cell'
    error(string.format("a symbol of %s '%s' used in the step of cell '%s' (a step computes "
                        .. "from its own gx, gh, h and c)", of, v.graph.name, current.name),
          level + 1)
  end
  return current
end

-- A comparison (F.lt, ...): F.where's condition, and nothing else.
local Condition = {}
M.Condition = Condition
local function is_condition(v) return getmetatable(v) == Condition end
M.is_condition = is_condition
M.NOT_A_VALUE = 'a comparison (F.lt, F.le, F.gt, F.ge, F.eq) is no value: it is the condition '
                .. 'of F.where(cond, a, b)'

local function operand(v)
  if is_node(v) then M.graph_of(v, 3); return v end
  if type(v) == 'number' then return v end
  if is_condition(v) or type(v) == 'boolean' then error(M.NOT_A_VALUE, 3) end
  if v == nil then -- most often an argument the step's form does not give
    error("a cell's expression takes symbols and numbers, got nil (a step of state 'h' or 'hc' "
          .. 'takes (gx, gh, h[, c]); x and per-unit parameters come with a list of states: '
          .. "state = {'h'}, step(gx, gh, s, p, x))", 3)
  end
  error(string.format("a cell's expression takes symbols and numbers, got %s", type(v)), 3)
end

local function binary(op)
  return function(a, b)
    a, b = operand(a), operand(b)
    return M.op(current, op, a, b)
  end
end
Node.__add = binary('add')
Node.__sub = binary('sub')
Node.__mul = binary('mul')
Node.__div = binary('div')
Node.__unm = function(a) return M.op(M.graph_of(a, 2), 'neg', a) end
Node.__tostring = function(n) return 'fused.cell symbol (' .. n.op .. ')' end
local function refuse(what)
  return function() error(string.format("a cell's expression has no %s", what), 2) end
end
Node.__pow = refuse('^ (write x * x)')
Node.__mod = refuse('%')
Node.__concat = refuse('..')
-- a branch on a symbol would pick one side for every element and step, silently
local NO_VALUE = 'a symbol is no value while the step runs: F.min, F.max and '
                 .. 'F.where(F.lt(a, b), ...) choose'
Node.__eq = refuse('== (' .. NO_VALUE .. ')')
Node.__lt = refuse('< (' .. NO_VALUE .. ')')
Node.__le = refuse('<= (' .. NO_VALUE .. ')')
Node.__call = refuse('call')
Node.__index = function(_, k)
  error(string.format("a cell's symbol has no field '%s' (symbols take + - * / and "
                      .. "fused.cell's functions)", tostring(k)), 2)
end
Node.__newindex = function() error("a cell's symbol is read-only", 2) end
for _, k in ipairs({ '__add', '__sub', '__mul', '__div', '__unm', '__pow', '__mod', '__concat',
                     '__lt', '__le', '__call' }) do
  Condition[k] = function() error(M.NOT_A_VALUE, 2) end
end
Condition.__index = function() error(M.NOT_A_VALUE, 2) end
Condition.__tostring = function(c) return 'fused.cell comparison (' .. c.op .. ')' end

-- The nodes reachable from roots, args first (in id order: a node is made after its args),
-- and the set of them; without recursion, so that a deep graph does not overflow the stack.
-- stop(n): true for a node whose args are not followed.
function M.reachable(roots, stop)
  local seen, last = {}, 0
  for _, r in ipairs(roots) do
    seen[r] = true
    last = math.max(last, r.id)
  end
  local list = {}
  local nodes = roots[1] and roots[1].graph.nodes or {}
  for id = last, 1, -1 do
    local n = nodes[id]
    if seen[n] then
      list[#list + 1] = n
      if not (stop and stop(n)) then
        for _, a in ipairs(n.args) do seen[a] = true end
      end
    end
  end
  local ordered = {}
  for i = #list, 1, -1 do ordered[#ordered + 1] = list[i] end
  return ordered, seen
end

return M
