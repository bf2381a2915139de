-- The expression graph of a cell's step (fused.cell.define): nodes made once per distinct
-- expression (so common subexpressions are one node), constants folded and the identities of
-- 0 and 1 applied as each node is made. Symbols are nodes with arithmetic metamethods, so the
-- user's step, run once on them, records its equations.
--
-- A node: op, args (nodes), id (creation order: args come before their users), fwd (true
-- unless it depends on a backward seed), and value (op 'const') or index (leaves gx, gh).
-- Leaves: gx, gh (gate k's products, biases included), h, c (the state the step starts
-- from), dh, dc (the backward's seeds: the gradients at the new h and c).
local M = {}

local Node = {}
Node.__index = Node

local function is_node(v) return getmetatable(v) == Node end
M.is_node = is_node

local current -- the graph that numbers and operators are made in while a step runs

local function sigmoid(x) return 1 / (1 + math.exp(-x)) end
local function tanh(x)
  local e = math.exp(-2 * math.abs(x))
  local t = (1 - e) / (1 + e)
  return x < 0 and -t or t
end

-- What each operation computes, for folding constants.
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
  abs = math.abs,
  softplus = function(x) return math.max(x, 0) + math.log(1 + math.exp(-math.abs(x))) end,
  elu = function(x) return x > 0 and x or math.exp(x) - 1 end,
  select_lt = function(a, b, p, q) if a < b then return p end return q end,
  dsigmoid = function(y) return y * (1 - y) end,
  dtanh = function(y) return 1 - y * y end,
  delu = function(y) return y > 0 and 1 or y + 1 end,
}

local function new_graph()
  return { nodes = {}, by_key = {} }
end
M.new = new_graph

local function make(g, op, args, extra)
  local key = op
  if op == 'const' then key = 'const ' .. string.format('%.17g', extra)
  elseif extra then key = op .. ' ' .. extra end
  local ids = {}
  for i, a in ipairs(args) do ids[i] = a.id end
  -- a + b is b + a exactly in IEEE arithmetic, and so is a * b
  if op == 'add' or op == 'mul' then table.sort(ids) end
  key = key .. '(' .. table.concat(ids, ',') .. ')'
  local found = g.by_key[key]
  if found then return found end
  local fwd = op ~= 'dh' and op ~= 'dc'
  for _, a in ipairs(args) do fwd = fwd and a.fwd end
  local n = setmetatable({ op = op, args = args, id = #g.nodes + 1, fwd = fwd, graph = g }, Node)
  if op == 'const' then n.value = extra else n.index = extra end
  g.nodes[n.id] = n
  g.by_key[key] = n
  return n
end

function M.const(g, v) return make(g, 'const', {}, v) end
function M.leaf(g, op, index) return make(g, op, {}, index) end

local function is_const(n, v) return n.op == 'const' and (v == nil or n.value == v) end

-- The node of op over args (nodes or numbers), simplified.
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
    if is_const(a, 0) then return b end
    if is_const(b, 0) then return a end
    if b.op == 'neg' then return M.op(g, 'sub', a, b.args[1]) end
    if a.op == 'neg' then return M.op(g, 'sub', b, a.args[1]) end
  elseif op == 'sub' then
    if is_const(b, 0) then return a end
    if is_const(a, 0) then return M.op(g, 'neg', b) end
    if b.op == 'neg' then return M.op(g, 'add', a, b.args[1]) end
  elseif op == 'mul' then
    if is_const(a, 0) or is_const(b, 0) then return M.const(g, 0) end
    if is_const(a, 1) then return b end
    if is_const(b, 1) then return a end
    if is_const(a, -1) then return M.op(g, 'neg', b) end
    if is_const(b, -1) then return M.op(g, 'neg', a) end
  elseif op == 'div' then
    if is_const(b, 1) then return a end
    if is_const(a, 0) then return a end
  elseif op == 'neg' then
    if a.op == 'neg' then return a.args[1] end
  elseif op == 'select_lt' then
    if args[3] == args[4] then return args[3] end
  elseif op == 'log' then
    -- log(1 + exp(x)) overflows to inf for x > 709 (88 in float32): the same value, safely
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

local function operand(v)
  if is_node(v) then return v end
  if type(v) == 'number' then return M.const(current, v) end
  error(string.format("a cell's expression takes symbols and numbers, got %s", type(v)), 3)
end

local function binary(op)
  return function(a, b) return M.op(current, op, operand(a), operand(b)) end
end
Node.__add = binary('add')
Node.__sub = binary('sub')
Node.__mul = binary('mul')
Node.__div = binary('div')
Node.__unm = function(a) return M.op(current, 'neg', a) end
Node.__tostring = function(n) return 'fused.cell symbol (' .. n.op .. ')' end
local function refuse(what)
  return function() error(string.format("a cell's expression has no %s", what), 2) end
end
Node.__pow = refuse('^ (write x * x)')
Node.__mod = refuse('%')
Node.__concat = refuse('..')
Node.__lt = refuse('< (F.min and F.max choose)')
Node.__le = refuse('<= (F.min and F.max choose)')
Node.__call = refuse('call')

-- The nodes reachable from roots, args first (by id: a node is made after its args).
function M.reachable(roots)
  local seen, list = {}, {}
  local function visit(n)
    if seen[n] then return end
    seen[n] = true
    for _, a in ipairs(n.args) do visit(a) end
    list[#list + 1] = n
  end
  for _, r in ipairs(roots) do visit(r) end
  table.sort(list, function(x, y) return x.id < y.id end)
  return list, seen
end

return M
